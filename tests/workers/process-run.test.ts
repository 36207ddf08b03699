// processRun on a real Redis store: a job whose run already ended (its worker died between finishing the run and
// completing the job) reports the stored outcome and calls nothing again; a new job's run id is its job id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/durable/durable-run.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { redisStore } from '../../src/store/redis-store.js';
import type { RunStore } from '../../src/store/types.js';
import { processRun } from '../../src/workers/process-run.js';
import { reactPipeline } from '../../pipelines/index.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';
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
    const first = await processRun({ runId: 'job-7', input: { task: 'seven' }, settings: {} }, { store, prepare, leaseMs: 2_000 });
    expect(first).toEqual({ runId: 'job-7', status: 'completed', answer: expectedAnswer('seven'), iterations: 4, tokens: 60, resumed: false });
    expect((await store.get('job-7'))?.status).toBe('completed');
    const calls = server.requests.length;
    const again = await processRun({ runId: 'job-7', input: { task: 'seven' }, settings: {} }, { store, prepare, leaseMs: 2_000 });
    expect(again).toEqual({ ...first, resumed: false });
    expect(server.requests.length).toBe(calls);
    // A run recorded outside the queue is reported the same way.
    const recorded = await runPipeline(reactPipeline(), { task: 'outside' }, { store, deps });
    expect((await processRun({ runId: recorded.runId, input: { task: 'outside' }, settings: {} }, { store, prepare, leaseMs: 2_000 })).answer).toBe(expectedAnswer('outside'));
    expect(server.requests.length).toBe(calls + 4);
  });
});
