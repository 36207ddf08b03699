// processRun on a real Redis store: a job whose run already ended (its worker died between finishing the run and
// completing the job) reports the stored outcome and calls nothing again; a new job's run id is its job id. And a
// worker whose write was lost while a newer owner finished its run learns it was taken over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/durable/durable-run.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { ChatModel } from '../../src/model/types.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { redisStore } from '../../src/store/redis-store.js';
import type { RunStore } from '../../src/store/types.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { processRun, RunTakenOverError } from '../../src/workers/process-run.js';
import { reactPipeline } from '../../pipelines/index.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';
import { testTools } from '../support/stage-tools.js';
import { liveOwner, outcome } from '../store/store-fixtures.js';
import { expectedAnswer, recordTools, serveAgentModel } from './fleet.js';
import { runRedisTests, startRedis, type RedisInstance } from './redis-server.js';

let redis: RedisInstance;
let server: ChatServer;
let store: RunStore;

describe.runIf(runRedisTests)('processRun', () => {
  beforeAll(async () => {
    [redis, server] = await Promise.all([startRedis(), startChatServer()]);
    serveAgentModel(server, 0);
    store = redisStore(redis.url, { prefix: 'process-run' });
  }, 20_000);
  afterAll(async () => {
    await store?.close();
    await Promise.all([redis?.stop(), server?.close()]);
  });

  it('runs a new job under its job id, and reports an ended run without running anything again', async () => {
    const model = new OpenAIChatModel({ baseUrl: server.url, model: 'test-model', apiKey: 'sk-test', maxRetries: 0 });
    const deps = { model, tools: recordTools('/dev/null', 0) };
    const prepare = () => ({ pipeline: reactPipeline(), deps });
    const first = await processRun(
      { runId: 'job-7', input: { task: 'seven' }, settings: {} },
      { store, prepare, leaseMs: 2_000 },
    );
    expect(first).toEqual({
      runId: 'job-7',
      status: 'completed',
      answer: expectedAnswer('seven'),
      iterations: 4,
      tokens: 60,
      resumed: false,
    });
    expect((await store.get('job-7'))?.status).toBe('completed');
    const calls = server.requests.length;
    const again = await processRun(
      { runId: 'job-7', input: { task: 'seven' }, settings: {} },
      { store, prepare, leaseMs: 2_000 },
    );
    expect(again).toEqual({ ...first, resumed: false });
    expect(server.requests.length).toBe(calls);
    // A run recorded outside the queue is reported the same way.
    const recorded = await runPipeline(reactPipeline(), { task: 'outside' }, { store, deps });
    expect(
      (
        await processRun(
          { runId: recorded.runId, input: { task: 'outside' }, settings: {} },
          { store, prepare, leaseMs: 2_000 },
        )
      ).answer,
    ).toBe(expectedAnswer('outside'));
    expect(server.requests.length).toBe(calls + 4);
  });
});

describe('processRun, fenced off without an epoch to tell it', () => {
  it('a write lost with its connection while a newer owner finished the run: taken over, not a failure to record', async () => {
    const shared = memoryStore();
    let connectionLost = false;
    // The worker's view of the shared store: once stopped and woken, its next write meets a server that ended its session.
    const store: RunStore = Object.assign(Object.create(shared) as RunStore, {
      append: (...args: Parameters<RunStore['append']>) => {
        if (connectionLost)
          return Promise.reject(
            new StageloopError(
              'store',
              'lost the connection to PostgreSQL at postgres://127.0.0.1/runs (57P01): the write in progress was not kept; resume the run once the server is back',
            ),
          );
        return shared.append(...args);
      },
    });
    const scripted = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"5 + 6"}' }] },
      { content: 'done: 11' },
    ]);
    const model: ChatModel = {
      provider: 'test',
      modelName: 'sleeper',
      async chat(request, signal) {
        if (scripted.requests.length === 0) {
          // While this worker "sleeps" in its first model call, another worker takes the run over and finishes it.
          const { claim } = await shared.claim('lost-write', liveOwner('replacement'), { force: true });
          await shared.finish(claim, outcome({ answer: 'done: 11' }));
          connectionLost = true;
        }
        return scripted.chat(request, signal);
      },
    };
    const prepare = () => ({ pipeline: reactPipeline(), deps: { model, tools: testTools() } });
    const taken = processRun(
      { runId: 'lost-write', input: { task: 'five plus six' }, settings: {} },
      { store, prepare, leaseMs: 2_000 },
    );
    await expect(taken).rejects.toBeInstanceOf(RunTakenOverError);
    await expect(taken).rejects.toThrow(
      /^run lost-write has ended in the store under another owner: .*lost the connection to PostgreSQL/,
    );
    expect(await shared.get('lost-write')).toMatchObject({ status: 'completed', answer: 'done: 11', epoch: 2 });
  });
});
