// A worker's recovery: the store's runs whose owner is gone and that no queued job brings back (a run started by
// `stageloop run` or `serve` on the shared store) are continued here, rebuilt from their recorded recipe.
import type { Redis } from 'ioredis';
import { resumeRun } from '../durable/durable-run.js';
import type { RunEvent } from '../engine/stage.js';
import type { RunInput } from '../engine/state.js';
import type { RunStore, RunSummary } from '../store/types.js';
import type { PrepareRun } from './process-run.js';
import { startRecovery } from './recovery.js';

/** Job states in which the queue still owns the run: its stalled job comes back to a worker by itself. */
const queued: ReadonlySet<string> = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

interface WorkerRecoveryParts {
  store: RunStore;
  connection: Redis;
  queue: string;
  prepare: PrepareRun;
  lockDuration: number;
  log: (line: string) => void;
}

export function startWorkerRecovery(parts: WorkerRecoveryParts) {
  const { store, prepare, lockDuration } = parts;
  const running = new Set<Promise<unknown>>();
  const controller = new AbortController();
  let queue: import('bullmq').Queue | undefined;
  const queueOf = async () =>
    (queue ??= new (await import('bullmq')).Queue(parts.queue, { connection: parts.connection }));
  const recovery = startRecovery({
    store,
    role: 'worker',
    log: parts.log,
    skip: async (run) => queued.has(await (await queueOf()).getJobState(run.runId)),
    async resume(run: RunSummary, recoveredBy: string) {
      const input: RunInput = { task: typeof run.input.task === 'string' ? run.input.task : '' };
      const prepared = await prepare({ runId: run.runId, input, settings: {} }, run);
      let claimed: () => void = () => undefined;
      let refused: (error: unknown) => void = () => undefined;
      const taken = new Promise<void>((resolve, reject) => ([claimed, refused] = [resolve, reject]));
      const given = prepared.deps?.onEvent;
      const onEvent = (event: RunEvent) => (claimed(), given?.(event));
      const done = resumeRun(store, run.runId, {
        pipeline: prepared.pipeline,
        deps: { ...prepared.deps, onEvent },
        leaseMs: lockDuration,
        signal: controller.signal,
        recoveredBy,
      })
        .then(() => claimed(), refused)
        .finally(() => prepared.close?.());
      running.add(done);
      void done.finally(() => running.delete(done));
      return taken;
    },
  });
  return {
    started: recovery.started,
    /** Stops looking; lets the recovered runs finish (with `force`, stops them at their next checkpoint). */
    async stop(force: boolean) {
      await recovery.stop();
      if (force) controller.abort(new Error('the worker is shutting down'));
      await Promise.all(running);
      await queue?.close();
    },
  };
}
