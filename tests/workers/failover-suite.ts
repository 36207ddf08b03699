// Two real worker processes, a real redis-server and the loopback model: 50 runs survive a SIGKILLed worker with
// results equal to uninterrupted runs and no side effect repeated beyond the call in flight; a SIGSTOPped worker
// that wakes up is fenced off (its writes refused, its job not completed twice). Written once for the run stores a
// worker can share: the Redis store of its queue, or a PostgreSQL store.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/engine/runner.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { openStore } from '../../src/store/location.js';
import type { RunStore } from '../../src/store/types.js';
import { enqueueRun } from '../../src/workers/run-job.js';
import { reactPipeline } from '../../pipelines/index.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';
import {
  expectedAnswer,
  recordTools,
  serveAgentModel,
  startWorkerProcess,
  stepsPerRun,
  type WorkerProcess,
} from './fleet.js';
import { startPostgres, type PostgresInstance } from '../support/postgres-server.js';
import { startRedis, type RedisInstance } from './redis-server.js';

/** Lines "pid task step" of the side-effect log, counted per task and step. */
function sideEffects(logFile: string): Map<string, number[]> {
  const byStep = new Map<string, number[]>();
  for (const line of readFileSync(logFile, 'utf8').split('\n').filter(Boolean)) {
    const [, pid, task, step] = /^(\d+) (".*") (\d+)$/.exec(line)!;
    const key = `${JSON.parse(task!) as string}#${step}`;
    byStep.set(key, [...(byStep.get(key) ?? []), Number(pid)]);
  }
  return byStep;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The failover tests with the runs in the Redis store of the queue, or in a PostgreSQL store the file starts. */
export function describeFailover(kind: 'redis' | 'postgres'): void {
  let redis: RedisInstance;
  let server: ChatServer;
  let directory: string;
  let store: RunStore;
  let postgres: PostgresInstance | undefined;
  let storeUrl = '';
  const workers: WorkerProcess[] = [];
  const connections: Array<{ close(): Promise<void> }> = [];

  function queueFor(name: string): { queue: Queue; events: QueueEvents } {
    const queue = new Queue(name, { connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
    const events = new QueueEvents(name, { connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
    connections.push(queue, events);
    return { queue, events };
  }

  describe(`workers on BullMQ (${kind} store)`, () => {
    beforeAll(async () => {
      [redis, server, postgres] = await Promise.all([
        startRedis(),
        startChatServer(),
        kind === 'postgres' ? startPostgres() : undefined,
      ]);
      serveAgentModel(server, 40);
      directory = mkdtempSync(join(tmpdir(), 'stageloop-workers-'));
      storeUrl = postgres === undefined ? redis.url : `${postgres.url}?schema=failover`;
      store = openStore({ path: storeUrl });
    }, 120_000);
    afterAll(async () => {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((worker) => worker.exited));
      await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
      await store?.close();
      await Promise.all([redis?.stop(), server?.close(), postgres?.stop()]);
      rmSync(directory, { recursive: true, force: true });
    }, 60_000);

    it('runs 50 runs over two workers, one SIGKILLed mid-runs: all equal to uninterrupted runs, no step done twice beyond the one in flight', async () => {
      const logFile = join(directory, 'side-effects.log');
      writeFileSync(logFile, '');
      const env = {
        REDIS_URL: redis.url,
        STORE_URL: storeUrl,
        MODEL_URL: server.url,
        SIDE_EFFECT_LOG: logFile,
        CONCURRENCY: '8',
        TOOL_DELAY_MS: '30',
      };
      const [victim, survivor] = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
      workers.push(victim, survivor);
      const { queue } = queueFor('stageloop-runs');
      const tasks = Array.from({ length: 50 }, (_, index) => `task-${index}`);
      for (const task of tasks) await enqueueRun(queue, { task, runId: task });
      // A double submit is one run.
      await enqueueRun(queue, { task: 'task-0', runId: 'task-0' });
      expect(await queue.getJobCountByTypes('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized')).toBe(
        50,
      );

      // Kill once the victim has done some steps and has runs in flight.
      await until(
        'the victim to do work',
        () =>
          sideEffects(logFile).size > 0 &&
          [...sideEffects(logFile).values()].flat().filter((pid) => pid === victim.child.pid).length >= 8,
        30_000,
      );
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      await until(
        'all 50 runs to complete',
        async () => (await store.list({ status: 'completed' })).length === 50,
        60_000,
      );

      // Uninterrupted references: the same pipeline, model and tool in this process, without any store.
      const model = new OpenAIChatModel({
        baseUrl: server.url,
        model: 'test-model',
        apiKey: 'sk-test',
        maxRetries: 0,
        timeoutMs: 10_000,
      });
      const references = await Promise.all(
        tasks.map((task) =>
          runPipeline(
            reactPipeline(),
            { task },
            { deps: { model, tools: recordTools(join(directory, 'reference.log'), 0) } },
          ),
        ),
      );
      let resumedRuns = 0;
      for (const [index, task] of tasks.entries()) {
        const run = (await store.get(task))!;
        expect([run.status, run.answer, run.iterations]).toEqual([
          references[index]!.status,
          references[index]!.answer,
          references[index]!.iterations,
        ]);
        expect(run.answer).toBe(expectedAnswer(task));
        const final = (await store.latestCheckpoint(task))!.state as { messages: unknown[] };
        expect(final.messages).toEqual(JSON.parse(JSON.stringify(references[index]!.state.messages)));
        const marker = (await store.journal(task)).find(
          (entry) => entry.kind === 'event' && (entry.data as { type?: string }).type === 'resumed',
        );
        if (marker !== undefined) resumedRuns += 1;
        // Resumed from a checkpoint, not from the start: the journal before the marker was served, not run again.
        if (marker !== undefined) expect((marker.data as { servedThrough: number }).servedThrough).toBeGreaterThan(0);
      }
      expect(resumedRuns).toBeGreaterThan(0);

      const effects = sideEffects(logFile);
      for (const task of tasks) {
        const repeated = [];
        for (let step = 1; step <= stepsPerRun; step += 1) {
          const pids = effects.get(`${task}#${step}`) ?? [];
          expect(pids.length, `${task} step ${step}`).toBeGreaterThanOrEqual(1);
          if (pids.length > 1) repeated.push(pids);
        }
        // At most the call the killed worker had in flight is done again, by the survivor.
        expect(repeated.length, task).toBeLessThanOrEqual(1);
        for (const pids of repeated) expect(pids).toEqual([victim.child.pid, survivor.child.pid]);
      }
      survivor.child.kill('SIGKILL');
      await survivor.exited;
      console.log(
        `failover: all 50 runs completed ${Date.now() - killedAt} ms after the kill; ${resumedRuns} resumed from a checkpoint`,
      );
    }, 90_000);

    it('fences a SIGSTOPped worker that wakes up: its writes are refused and its job is completed once', async () => {
      const logFile = join(directory, 'zombie.log');
      writeFileSync(logFile, '');
      const env = {
        REDIS_URL: redis.url,
        STORE_URL: storeUrl,
        MODEL_URL: server.url,
        SIDE_EFFECT_LOG: logFile,
        CONCURRENCY: '1',
        TOOL_DELAY_MS: '300',
      };
      // Both workers start side by side (a process start takes seconds on a loaded machine); whichever takes the job
      // is the one stopped, the other its replacement, idle until the job comes back.
      const pair = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
      workers.push(...pair);
      const { queue, events } = queueFor('stageloop-runs');
      let completions = 0;
      let jobCompleted: () => void = () => undefined;
      const completedOnce = new Promise<void>((resolve) => (jobCompleted = resolve));
      events.on('completed', ({ jobId }) => {
        if (jobId !== 'zombie-run') return;
        completions += 1;
        jobCompleted();
      });
      await events.waitUntilReady();
      await enqueueRun(queue, { task: 'zombie task', runId: 'zombie-run' });
      const zombie = await Promise.any(
        pair.map((worker) => worker.waitForOutput(/job taken: run zombie-run\n/, 60_000).then(() => worker)),
      );
      const replacement = pair.find((worker) => worker !== zombie)!;
      await until('the first step', () => sideEffects(logFile).has('zombie task#1'), 60_000);
      zombie.child.kill('SIGSTOP');
      const stoppedEffects = [...sideEffects(logFile).values()].flat().length;
      // The job comes back once its lock runs out unrenewed; the replacement resumes the run once the lease has too.
      await replacement.waitForOutput(/job finished: run zombie-run completed/, 60_000);
      await completedOnce;
      const completed = (await store.get('zombie-run'))!;
      expect(completed.status).toBe('completed');
      const journalLength = (await store.journal('zombie-run')).length;
      zombie.child.kill('SIGCONT');
      // The store refused the zombie's next write (a stale epoch), and BullMQ its job (the lock moved on).
      // On PostgreSQL a zombie stopped inside a transaction wakes to find the server ended that session (its write kept
      // nothing, and the run's record shows it ended under another owner); stopped between writes, its next write
      // meets the newer epoch. Either way it is fenced off, and says so on the job's line.
      const fenced =
        /job zombie-run: run zombie-run was taken over by another worker: .*was claimed by another owner \(epoch \d\)|job zombie-run: .*lost the connection to PostgreSQL/;
      await zombie.waitForOutput(fenced, 60_000);

      expect(completed.answer).toBe(expectedAnswer('zombie task'));
      expect(completed.epoch).toBeGreaterThanOrEqual(2);
      // Nothing of the zombie's reached the store after the replacement finished, and the record did not change.
      expect((await store.journal('zombie-run')).length).toBe(journalLength);
      expect(await store.get('zombie-run')).toEqual(completed);
      const job = (await queue.getJob('zombie-run'))!;
      expect(await job.getState()).toBe('completed');
      expect(completions).toBe(1);
      // The zombie did at most the step it had in flight when it was stopped.
      const zombieSteps = [...sideEffects(logFile).values()].flat().filter((pid) => pid === zombie.child.pid).length;
      expect(zombieSteps).toBeLessThanOrEqual(stoppedEffects + 1);
      for (let step = 1; step <= stepsPerRun; step += 1)
        expect((sideEffects(logFile).get(`zombie task#${step}`) ?? []).length).toBeLessThanOrEqual(2);
      // Each wait above is bounded by its own event; the sum is a loaded machine's worst case, not a pause.
    }, 180_000);
  });
}
