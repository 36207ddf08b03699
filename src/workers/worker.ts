// startWorker(options): takes runs off a BullMQ queue and runs them against the shared Redis store. A dead worker's
// job comes back after lockDuration + stalledInterval and another worker resumes the run from its last checkpoint;
// a paused worker that wakes finds its claim's epoch moved on (writes refused) and its job lock gone.
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { messageOf } from '../common/error-message.js';
import { loadOptional, optionalParts } from '../common/optional-package.js';
import { checkRedisReachable, connectRedis } from '../store/redis-connection.js';
import { redisStore } from '../store/redis-store.js';
import type { RunStore } from '../store/types.js';
import { batchedProgress } from './progress.js';
import { processRun, RunTakenOverError, type PrepareRun, type RunJobResult } from './process-run.js';
import { defaultQueueName, parseRunJob, RunJobError } from './run-job.js';
import { withTraceHeaders } from '../tracing/trace-context.js';
import { startWorkerRecovery } from './worker-recovery.js';

export interface WorkerOptions {
  /** redis:// URL of the queue (and, unless `store` is given, of the run store). */
  redis: string;
  prepare: PrepareRun;
  queue?: string;
  /** Runs at once in this process (default 1). */
  concurrency?: number;
  /** The shared store (default: the Redis store at `redis`). */
  store?: RunStore;
  /** How long a job's lock lasts unrenewed, in ms (default 5,000); the run's store lease lasts as long. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for, in ms (default 1,000). A dead worker's run moves on within the sum. */
  stalledIntervalMs?: number;
  /** One line per noteworthy thing (Redis lost and back, a job failed); default: nothing. */
  log?: (line: string) => void;
  /** Continues the store's runs whose owner is gone that no job brings back (default true; `--no-recover`). */
  recover?: boolean;
}

export interface RunWorker {
  readonly worker: Worker;
  readonly store: RunStore;
  /** Stops taking jobs, lets the running ones finish (or, with `force`, leaves them to another worker), disconnects. */
  close(force?: boolean): Promise<void>;
}

function isConnectionError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return (
    /^E(CONN|PIPE|TIMEDOUT|NOTFOUND|HOSTUNREACH|NETUNREACH)/.test(code) ||
    /Connection is closed|Stream isn't writeable/.test(error.message)
  );
}

/** Says once when Redis goes away and once when it is back, however many retries lie between. */
function outageReporter(redis: string, log: (line: string) => void) {
  let down = false;
  return {
    lost(error: Error) {
      if (down) return;
      down = true;
      log(
        `lost Redis at ${redis} (${(error as NodeJS.ErrnoException).code ?? error.message}): not taking jobs, retrying; runs in flight go on once it is back`,
      );
    },
    back() {
      if (!down) return;
      down = false;
      log(`Redis at ${redis} is back: taking jobs again`);
    },
  };
}

/** Starts a worker; rejects with one line when Redis cannot be reached at all. */
export async function startWorker(options: WorkerOptions): Promise<RunWorker> {
  const log = options.log ?? (() => undefined);
  await checkRedisReachable(options.redis);
  const { Worker, UnrecoverableError } = await loadOptional('a worker', optionalParts.workers, () => import('bullmq'));
  const lockDuration = options.lockDurationMs ?? 5_000;
  const outage = outageReporter(options.redis, log);
  const connection: Redis = await connectRedis(options.redis, {
    patient: true,
    onConnectionError: (error) => outage.lost(error),
  });
  connection.on('ready', () => outage.back());
  const ownStore = options.store === undefined;
  const store = options.store ?? redisStore(options.redis, { patient: true });
  const processor = async (job: Job): Promise<RunJobResult> => {
    let data;
    try {
      data = parseRunJob(job.id, job.data);
    } catch (error) {
      // Retrying cannot fix a payload: fail the job for good, with the reason, and go on with the next.
      throw error instanceof RunJobError ? new UnrecoverableError(error.message) : error;
    }
    const progress = batchedProgress((batch) => job.updateProgress(batch));
    // One line per job taken and finished, so an operator watching the worker sees it work.
    const started = Date.now();
    log(`job taken: run ${data.runId}`);
    try {
      const job = data;
      // The submitter's trace context (when it sent one): the run's spans join its trace.
      const result = await withTraceHeaders(data.trace, () =>
        processRun(job, { store, prepare: options.prepare, leaseMs: lockDuration, onEvent: progress.onEvent }),
      );
      log(`job finished: run ${result.runId} ${result.status} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return result;
    } catch (error) {
      // Said here: BullMQ will not report this job's failure, since the lock went to the new owner.
      if (error instanceof RunTakenOverError) log(`job ${job.id}: ${error.message}`);
      throw error;
    } finally {
      // The last events reach a follower before the job's completion does.
      await progress.flush();
    }
  };
  const worker = new Worker(options.queue ?? defaultQueueName, processor, {
    connection,
    concurrency: options.concurrency ?? 1,
    lockDuration,
    stalledInterval: options.stalledIntervalMs ?? 1_000,
    // Each kill of a worker stalls its jobs once; a run survives many before BullMQ gives up on it.
    maxStalledCount: 10,
  });
  // Connection trouble is an outage (said once); anything else (a lock lost to another worker) is one line each.
  worker.on('error', (error) => (isConnectionError(error) ? outage.lost(error) : log(`worker: ${messageOf(error)}`)));
  worker.on('failed', (job, error) => {
    if (!(error instanceof RunTakenOverError)) log(`job ${job?.id ?? '?'} failed: ${messageOf(error)}`);
  });
  await worker.waitUntilReady();
  const recovery =
    options.recover === false
      ? undefined
      : startWorkerRecovery({
          store,
          connection,
          queue: options.queue ?? defaultQueueName,
          prepare: options.prepare,
          lockDuration,
          log,
        });
  await recovery?.started;
  return {
    worker,
    store,
    async close(force = false) {
      await recovery?.stop(force);
      await worker.close(force);
      if (ownStore) await store.close();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}
