// Bad input for workers: Redis unreachable at start (one line), a malformed job payload (the job fails with the
// reason, the worker goes on), and Redis lost mid-run behind a loopback proxy (the worker says so, waits, and the
// run in flight completes once Redis is back).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStore } from '../../src/store/redis-store.js';
import { enqueueRun } from '../../src/workers/run-job.js';
import { startWorker } from '../../src/workers/worker.js';
import { reactPipeline } from '../../pipelines/index.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { expectedAnswer, recordTools, serveAgentModel, startWorkerProcess, type WorkerProcess } from './fleet.js';
import { freePort, runRedisTests, startRedis, type RedisInstance } from './redis-server.js';

/** A TCP proxy on `port` to Redis that can be cut (every connection dropped, new ones refused) and restored. */
function redisProxy(port: number, target: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = createConnection(target, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      }).listen(port, '127.0.0.1', () => resolve());
    });
  return {
    open,
    async cut() {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

let redis: RedisInstance;
let server: ChatServer;
let directory: string;
const workers: WorkerProcess[] = [];

describe.runIf(runRedisTests)('workers: bad input', () => {
  beforeAll(async () => {
    [redis, server] = await Promise.all([startRedis(), startChatServer()]);
    serveAgentModel(server, 150);
    directory = mkdtempSync(join(tmpdir(), 'stageloop-bad-input-'));
  }, 30_000);
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await Promise.all(workers.map((worker) => worker.exited));
    await Promise.all([redis?.stop(), server?.close()]);
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses to start when Redis is unreachable, in one line', async () => {
    const port = await freePort();
    const start = startWorker({ redis: `redis://127.0.0.1:${port}`, prepare: () => ({ pipeline: reactPipeline() }) });
    await expect(start).rejects.toThrow(`cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED): start redis-server there, or pass the right --redis URL`);
  });

  it('fails a malformed job for good with a clear reason and goes on with the next job', async () => {
    const lines: string[] = [];
    const model = new OpenAIChatModel({ baseUrl: server.url, model: 'test-model', apiKey: 'sk-test', maxRetries: 0 });
    const deps = { model, tools: recordTools(join(directory, 'malformed.log'), 0) };
    const worker = await startWorker({ redis: redis.url, queue: 'malformed', prepare: () => ({ pipeline: reactPipeline(), deps }), log: (line) => lines.push(line) });
    const queue = new Queue('malformed', { connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
    try {
      await queue.add('run', { runId: 'bad-1', input: { task: 42 } }, { jobId: 'bad-1', attempts: 3 });
      await queue.add('run', 'not an object', { jobId: 'bad-2', attempts: 3 });
      const { runId } = await enqueueRun(queue, { task: 'good task', runId: 'after-bad' });
      const deadline = Date.now() + 20_000;
      while ((await queue.getJobState(runId)) !== 'completed' && (await queue.getJobState(runId)) !== 'failed' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const bad = (await queue.getJob('bad-1'))!;
      expect(await bad.getState()).toBe('failed');
      expect(bad.attemptsMade).toBe(1);
      expect(bad.failedReason).toMatch(/^malformed job bad-1: input\.task: .*; enqueue runs with enqueueRun\(\) or "stageloop submit"$/);
      expect((await queue.getJob('bad-2'))!.failedReason).toMatch(/^malformed job bad-2: the payload: /);
      expect(lines.some((line) => line.startsWith('job bad-1 failed: malformed job bad-1'))).toBe(true);
      // The worker went on: the next job ran (the loopback model answers it with three steps).
      expect(await queue.getJobState(runId)).toBe('completed');
      expect(((await queue.getJob(runId))!.returnvalue as { answer: string }).answer).toBe(expectedAnswer('good task'));
    } finally {
      await queue.close();
      await worker.close();
    }
  }, 30_000);

  // A cut proxy, a reconnect and BullMQ's own retry timers race the rest of the suite for 2 cores: tried again if it lost.
  it('says when Redis is lost mid-run, takes no jobs meanwhile, and completes the run once Redis is back', { retry: 2, timeout: 60_000 }, async () => {
    const proxyPort = await freePort();
    const proxy = redisProxy(proxyPort, redis.port);
    await proxy.open();
    const logFile = join(directory, 'outage.log');
    writeFileSync(logFile, '');
    const env = { REDIS_URL: `redis://127.0.0.1:${proxyPort}`, MODEL_URL: server.url, SIDE_EFFECT_LOG: logFile, CONCURRENCY: '1', LOCK_MS: '6000', STALL_MS: '1000', TOOL_DELAY_MS: '100' };
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    const queue = new Queue('stageloop-runs', { connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
    const store = redisStore(redis.url);
    try {
      await enqueueRun(queue, { task: 'outage task', runId: 'outage-run' });
      const deadline = Date.now() + 20_000;
      while (((await store.get('outage-run'))?.head ?? 0) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await proxy.cut();
      // Submitted during the outage: the worker cannot take it until Redis is back.
      await enqueueRun(queue, { task: 'later task', runId: 'later-run' });
      // Under load the worker may take a moment to notice: wait for its line (bounded), then check what it said.
      const noticeBy = Date.now() + 10_000;
      while (!worker.output().includes('lost Redis') && Date.now() < noticeBy) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(worker.output()).toMatch(/lost Redis at redis:\/\/127\.0\.0\.1:\d+ \(ECONN\w+\): not taking jobs, retrying; runs in flight go on once it is back/);
      expect(await queue.getJobState('later-run')).toBe('waiting');
      await proxy.open();
      const until = Date.now() + 30_000;
      // The run cut off mid-way and the one submitted meanwhile both finish; in either order.
      const finished = async () => (await store.get('later-run'))?.status === 'completed' && (await store.get('outage-run'))?.status === 'completed';
      while (!(await finished()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(worker.output()).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+ is back: taking jobs again/);
      expect((await store.get('outage-run'))?.answer).toBe(expectedAnswer('outage task'));
      expect((await store.get('later-run'))?.answer).toBe(expectedAnswer('later task'));
      expect(await queue.getJobState('outage-run')).toBe('completed');
    } finally {
      await proxy.cut().catch(() => undefined);
      await queue.close();
      await store.close();
    }
  });
});
