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

/** Polls `probe` (a look at Redis or the store) until it holds; fails naming `what` after `timeoutMs`. */
async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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
    await expect(start).rejects.toThrow(
      `cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED): start redis-server there, or pass the right --redis URL`,
    );
  });

  it('fails a malformed job for good with a clear reason and goes on with the next job', async () => {
    const lines: string[] = [];
    const model = new OpenAIChatModel({ baseUrl: server.url, model: 'test-model', apiKey: 'sk-test', maxRetries: 0 });
    const deps = { model, tools: recordTools(join(directory, 'malformed.log'), 0) };
    const worker = await startWorker({
      redis: redis.url,
      queue: 'malformed',
      prepare: () => ({ pipeline: reactPipeline(), deps }),
      log: (line) => lines.push(line),
    });
    const queue = new Queue('malformed', { connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
    try {
      await queue.add('run', { runId: 'bad-1', input: { task: 42 } }, { jobId: 'bad-1', attempts: 3 });
      await queue.add('run', 'not an object', { jobId: 'bad-2', attempts: 3 });
      const { runId } = await enqueueRun(queue, { task: 'good task', runId: 'after-bad' });
      await waitUntil(
        async () => ['completed', 'failed'].includes(await queue.getJobState(runId)),
        'the good job to end',
        30_000,
      );
      const bad = (await queue.getJob('bad-1'))!;
      expect(await bad.getState()).toBe('failed');
      expect(bad.attemptsMade).toBe(1);
      expect(bad.failedReason).toMatch(
        /^malformed job bad-1: input\.task: .*; enqueue runs with enqueueRun\(\) or "stageloop submit"$/,
      );
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

  // Its own proxy, worker, queue and run ids: nothing it waits on is shared with another test or an earlier try; every
  // wait is on something the worker says or the store records, never on a pause.
  it(
    'says when Redis is lost mid-run, takes no jobs meanwhile, and completes the run once Redis is back',
    { timeout: 90_000 },
    async () => {
      const proxyPort = await freePort();
      const proxy = redisProxy(proxyPort, redis.port);
      await proxy.open();
      const logFile = join(directory, 'outage.log');
      writeFileSync(logFile, '');
      const queueName = `outage-${proxyPort}`;
      const [outageRun, laterRun] = [`outage-run-${proxyPort}`, `later-run-${proxyPort}`];
      const env = {
        REDIS_URL: `redis://127.0.0.1:${proxyPort}`,
        QUEUE: queueName,
        MODEL_URL: server.url,
        SIDE_EFFECT_LOG: logFile,
        CONCURRENCY: '1',
        LOCK_MS: '20000',
        STALL_MS: '1000',
        TOOL_DELAY_MS: '100',
      };
      const worker = await startWorkerProcess(env);
      workers.push(worker);
      const queue = new Queue(queueName, { connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
      const store = redisStore(redis.url);
      try {
        await enqueueRun(queue, { task: 'outage task', runId: outageRun });
        await waitUntil(
          async () => ((await store.get(outageRun))?.head ?? 0) >= 3,
          'the run to record its first steps',
          30_000,
        );
        await proxy.cut();
        // Submitted during the outage (straight to Redis): the worker, cut off, cannot take it until Redis is back.
        await enqueueRun(queue, { task: 'later task', runId: laterRun });
        // The worker says it once, naming the socket error it met (a refused reconnect, or a write into the cut pipe).
        await worker.waitForOutput(/lost Redis/, 30_000);
        expect(worker.output()).toMatch(
          /lost Redis at redis:\/\/127\.0\.0\.1:\d+ \((ECONN\w+|EPIPE|ETIMEDOUT|Connection is closed\.?)\): not taking jobs, retrying; runs in flight go on once it is back/,
        );
        expect(await queue.getJobState(laterRun)).toBe('waiting');
        await proxy.open();
        await worker.waitForOutput(/Redis at redis:\/\/127\.0\.0\.1:\d+ is back: taking jobs again/, 30_000);
        // The run cut off mid-way and the one submitted meanwhile both finish; in either order.
        await waitUntil(
          async () =>
            (await store.get(laterRun))?.status === 'completed' && (await store.get(outageRun))?.status === 'completed',
          'both runs to complete',
          45_000,
        );
        expect((await store.get(outageRun))?.answer).toBe(expectedAnswer('outage task'));
        expect((await store.get(laterRun))?.answer).toBe(expectedAnswer('later task'));
        await waitUntil(
          async () => (await queue.getJobState(outageRun)) === 'completed',
          'the outage job to complete',
          15_000,
        );
      } finally {
        worker.child.kill('SIGKILL');
        await worker.exited;
        await proxy.cut().catch(() => undefined);
        await queue.close();
        await store.close();
      }
    },
  );
});
