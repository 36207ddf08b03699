// `stageloop worker` and `stageloop submit` as processes against a real redis-server and the loopback model: submit
// prints the run id and follows the run live, a double submit is one run, --detach returns at once, an unreachable
// Redis is one line and exit 1, and `runs --store redis://...` reads the shared store.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsCommand } from '../../app/cli/runs-command.js';
import { openStoreAt } from '../../src/store/redis-location.js';
import { sendReply, startChatServer, type ChatServer } from '../support/chat-server.js';
import { cleanEnvironment, type CliRun } from '../support/run-cli.js';
import { runRedisTests, startRedis, type RedisInstance } from './redis-server.js';

const entry = fileURLToPath(new URL('./cli-entry.ts', import.meta.url));
let redis: RedisInstance;
let server: ChatServer;
let worker: ReturnType<typeof spawn> | undefined;
let workerOutput = '';
let modelCalls = 0;
// Sessions live beside the worker, not in Redis: the worker and the CLI share this home.
const home = mkdtempSync(join(tmpdir(), 'stageloop-worker-sessions-'));
const modelEnv = { OPENAI_BASE_URL: '', OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'test-model', STAGELOOP_HOME: home };

function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { env: cleanEnvironment(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe.runIf(runRedisTests)('stageloop worker and submit', () => {
  beforeAll(async () => {
    [redis, server] = await Promise.all([startRedis(), startChatServer()]);
    server.handle(async (request, response) => {
      modelCalls += 1;
      const task = (request.body.messages.find((message) => message.role === 'user')?.content ?? '').trim();
      sendReply(request, response, { content: `the answer to ${task}` });
    }, Number.POSITIVE_INFINITY);
    worker = spawn(process.execPath, ['--import', 'tsx', entry, 'worker', '--redis', redis.url, '--concurrency', '2'], {
      env: cleanEnvironment({ ...modelEnv, OPENAI_BASE_URL: server.url }),
    });
    worker.stderr!.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
    const deadline = Date.now() + 20_000;
    while (!workerOutput.includes('taking runs from')) {
      if (Date.now() > deadline) throw new Error(`the worker did not start: ${workerOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }, 40_000);
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker!.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await Promise.all([redis?.stop(), server?.close()]);
  });

  it('prints the run id, follows the run live through BullMQ events and prints the answer; a double submit is one run', async () => {
    const first = await cli(['submit', '--redis', redis.url, '--id', 'cli-run-1', 'What is six times seven?']);
    expect([first.code, first.stdout]).toEqual([0, 'cli-run-1\nthe answer to What is six times seven?\n']);
    // Progress came from the worker's job progress events.
    expect(first.stderr).toMatch(/think/);
    expect(first.stderr).toContain('run cli-run-1 completed after 1 iteration,');
    // The worker says one line per job taken and one per job finished, with run id, status and time.
    const deadline = Date.now() + 10_000;
    while (!/job finished: run cli-run-1 completed in \d+\.\d s/.test(workerOutput)) {
      if (Date.now() > deadline) throw new Error(`the worker did not log the finished job: ${workerOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(workerOutput).toContain('job taken: run cli-run-1\n');
    const calls = modelCalls;
    const again = await cli([
      'submit',
      '--redis',
      redis.url,
      '--id',
      'cli-run-1',
      '--quiet',
      'What is six times seven?',
    ]);
    expect([again.code, again.stdout]).toEqual([0, 'cli-run-1\nthe answer to What is six times seven?\n']);
    expect(modelCalls).toBe(calls);

    const output: string[] = [];
    const store = openStoreAt({ path: redis.url });
    const streams = {
      stdout: { write: (text: string) => output.push(text) },
      stderr: { write: (text: string) => output.push(text) },
    } as never;
    expect(await runsCommand(['--json'], streams, store)).toBe(0);
    await store.close();
    const runs = JSON.parse(output.join('')) as Array<{ runId: string; status: string; answer: string }>;
    expect(runs.filter((run) => run.runId === 'cli-run-1')).toEqual([
      expect.objectContaining({ status: 'completed', answer: 'the answer to What is six times seven?' }),
    ]);
  }, 40_000);

  it('a session turn taken by the worker is read by the next turn run from the CLI on the same Redis store', async () => {
    const first = await cli([
      'submit',
      '--redis',
      redis.url,
      '--quiet',
      '--session',
      'shared',
      'What is nine squared?',
    ]);
    expect(first.code).toBe(0);
    const next = await cli(['run', '-q', '--store', redis.url, '--session', 'shared', 'And doubled?'], {
      ...modelEnv,
      OPENAI_BASE_URL: server.url,
    });
    expect([next.code, next.stderr]).toEqual([0, '']);
    const messages = server.lastBody!.messages.map((message) => message.content ?? '').join('\n');
    expect(messages, JSON.stringify(server.lastBody!.messages)).toContain('the answer to What is nine squared?');
  });

  it('returns at once with --detach, printing only the id', async () => {
    const detached = await cli(['submit', '--redis', redis.url, '--detach', 'a detached task']);
    expect(detached.code).toBe(0);
    expect(detached.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
  }, 20_000);

  it('says in one line that Redis is unreachable, exit 1, for worker and submit; a bad URL is a usage error', async () => {
    // Port 9 (discard) has no listener; a free ephemeral port could be taken by another test's server meanwhile.
    const url = 'redis://127.0.0.1:9';
    const [workerRun, submitRun, badUrl] = await Promise.all([
      cli(['worker', '--redis', url]),
      cli(['submit', '--redis', url, 'a task']),
      cli(['worker', '--redis', 'localhost:6379']),
    ]);
    const line = `stageloop: cannot reach Redis at ${url} (ECONNREFUSED): start redis-server there, or pass the right --redis URL\n`;
    expect([workerRun.code, workerRun.stderr]).toEqual([1, line]);
    expect([submitRun.code, submitRun.stderr]).toEqual([1, line]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toBe(
      'stageloop: --redis: "localhost:6379" is not a Redis URL: write it as redis://HOST:PORT (or rediss:// for TLS), e.g. redis://127.0.0.1:6379\n',
    );
  }, 30_000);
});
