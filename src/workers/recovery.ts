// startRecovery(options): a server or worker takes up, at start and then every interval, the runs of its store whose
// owner is gone and whose lease has expired. Only `running` runs: one interrupted or paused waits for its person (a
// call in doubt too). The store's claim fences it: of two processes that see one dead run, one takes it; the other's
// claim is refused (busy) and it leaves the run be.
import { hostname } from 'node:os';
import { messageOf } from '../common/error-message.js';
import { leaseIsLive } from '../store/run-store.js';
import { RunBusyError, RunFinishedError, type RunStore, type RunSummary } from '../store/types.js';

export interface RecoveryOptions {
  store: RunStore;
  /** Who recovers, e.g. "serve": the runs list shows "recovered by serve pid N on HOST". */
  role: string;
  /**
   * Continues the run here, recording `recoveredBy`; resolves once the run is claimed (its first event), rejects when
   * the claim is refused. The run itself goes on after that, in the caller's care.
   */
  resume(run: RunSummary, recoveredBy: string): Promise<unknown>;
  /** Runs someone else brings back (a queued job the queue redelivers): left alone. */
  skip?(run: RunSummary): Promise<boolean>;
  /** How often the store is looked at again, in ms (default 10,000). */
  intervalMs?: number;
  /** One line per run recovered, or given up on. */
  log?(line: string): void;
}

export interface Recovery {
  /** Who this process is in the runs list. */
  readonly recoveredBy: string;
  /** The first look, at start: resolves once every run it found is claimed here or left. */
  readonly started: Promise<void>;
  /** Looks now; resolves once every run found is claimed or left. */
  scan(): Promise<void>;
  /** Stops looking (runs already taken go on in the caller's care). */
  stop(): Promise<void>;
}

export function startRecovery(options: RecoveryOptions): Recovery {
  const recoveredBy = `${options.role} pid ${process.pid} on ${hostname()}`;
  const log = options.log ?? (() => undefined);
  // A run this process could not take for a reason of its own (another pipeline, a missing key): said once.
  const givenUp = new Set<string>();
  let stopped = false;
  let scanning: Promise<void> = Promise.resolve();

  const take = async (run: RunSummary): Promise<void> => {
    if (givenUp.has(run.runId) || (await options.skip?.(run)) === true) return;
    try {
      await options.resume(run, recoveredBy);
      const owner = run.owner === null ? 'its owner' : `its owner (pid ${run.owner.pid} on ${run.owner.host})`;
      log(`recovered run ${run.runId}: ${owner} was gone; continuing it from its last checkpoint`);
    } catch (error) {
      // Another process took it first: the fence did its work.
      if (error instanceof RunBusyError || error instanceof RunFinishedError) return;
      givenUp.add(run.runId);
      log(`could not recover run ${run.runId}: ${messageOf(error)}; continue it with "stageloop resume ${run.runId}"`);
    }
  };

  const look = async (): Promise<void> => {
    let runs: RunSummary[];
    try {
      runs = await options.store.list({ status: 'running' });
    } catch (error) {
      log(`could not look for runs to recover: ${messageOf(error)}`);
      return;
    }
    const now = Date.now();
    const orphans = runs.filter((run) => !leaseIsLive(run.owner, run.leaseUntil, now));
    await Promise.all(orphans.map(take));
  };

  const scan = (): Promise<void> => {
    // One look at a time: a slow store never stacks looks up.
    scanning = scanning.then(() => (stopped ? undefined : look()));
    return scanning;
  };
  const timer = setInterval(() => void scan(), options.intervalMs ?? 10_000);
  timer.unref();
  return {
    recoveredBy,
    started: scan(),
    scan,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await scanning;
    },
  };
}
