// A worker continues the runs of its store whose owner is gone and that no job brings back: a `stageloop run` on the
// shared Redis store killed with SIGKILL mid-run completes once a worker starts; `--no-recover` leaves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStore } from '../../src/store/redis-store.js';
import type { RunSummary } from '../../src/store/types.js';
import type { ChatServer } from '../support/chat-server.js';
import { startChatServer } from '../support/chat-server.js';
import { startCli } from '../support/run-cli.js';
import { waitFor } from '../server/serve-support.js';
import { runRedisTests, startRedis, type RedisInstance } from './redis-server.js';

let redis: RedisInstance;
let model: ChatServer;
beforeAll(async () => {
  if (!runRedisTests) return;
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

const env = () => ({ OPENAI_API_KEY: 'sk-test' });

/** A `stageloop run` on the Redis store, killed while its model call is open. */
async function orphanedRun(): Promise<string> {
  model = await startChatServer();
  model.hang();
  const run = startCli(
    ['run', '--store', redis.url, '--base-url', model.url, '--model', 'test-model', 'What is 6 * 7?'],
    env(),
  );
  try {
    // A loaded machine may take its time to start a CLI: the run's model call is the event (the test's own timeout
    // bounds it, not the chat server's 20 s, which failed this test in a full suite), and a run that ends first says why.
    await Promise.race([
      model.received(1, 150_000),
      run.done.then((ended) => Promise.reject(new Error(`the run ended before its model call: ${ended.stderr}`))),
    ]);
  } finally {
    run.child.kill('SIGKILL');
  }
  const killed = await run.done;
  model.replyWith({ content: 'The answer is 42.', times: 4 });
  return /run ([0-9a-f]{32})/.exec(killed.stderr)![1]!;
}

async function runOf(runId: string): Promise<RunSummary | undefined> {
  const store = redisStore(redis.url);
  try {
    return await store.get(runId);
  } finally {
    await store.close();
  }
}

function worker(...flags: string[]) {
  return startCli(['worker', '--redis', redis.url, ...flags], env());
}

describe.runIf(runRedisTests)('stageloop worker recovers the runs of its store whose owner is gone', () => {
  it('continues a killed run of the store, and says so', async () => {
    const runId = await orphanedRun();
    const started = worker();
    try {
      await started.waitForStderr(`recovered run ${runId}`);
      await started.waitForStderr('taking runs from');
      expect((await runOf(runId))?.epoch).toBe(2);
      await waitFor(async () => ((await runOf(runId))?.status === 'completed' ? true : undefined), 'the run', 60_000);
      expect((await runOf(runId))?.answer).toBe('The answer is 42.');
    } finally {
      started.child.kill('SIGTERM');
      await started.done;
      await model.close();
    }
  }, 180_000);

  it('--no-recover leaves it', async () => {
    const runId = await orphanedRun();
    const started = worker('--no-recover');
    try {
      // The worker says it takes runs once its start is behind it (where recovery would have looked).
      await started.waitForStderr('taking runs from');
      expect(await runOf(runId)).toMatchObject({ status: 'running', epoch: 1 });
    } finally {
      started.child.kill('SIGTERM');
      await started.done;
      await model.close();
    }
  }, 180_000);
});
