// The finalize zone: every stage runs once, whatever happened before; its problems become warnings; it has a time limit.
import { LazyAbort } from '../common/lazy-abort.js';
import { isPromiseLike } from '../common/promise-like.js';
import { messageOf } from '../common/error-message.js';
import type { Pipeline } from './pipeline.js';
import type { RunWarning } from './run-result.js';
import type { Signal } from './signal.js';
import { firstSlot } from './stage-timings.js';
import type { Stage, StageReturn } from './stage.js';

/** After the limit aborts a finalize stage, how long it may take to write its fallback before it is left behind. */
const finalizeGraceMs = 100;
const expired = Symbol('finalize-expired');

export interface FinalizeHost {
  readonly pipeline: Pipeline;
  readonly timings: number[];
  readonly warnings: RunWarning[];
  dispatch(stage: Stage, zone: 'finalize'): StageReturn;
  finished(stage: Stage, signal: Signal | void): Signal | void;
  /** The durability seam after each finalize stage; its failures are warnings here. */
  boundary(stage: Stage, nextStage: number, signal: Signal | void): void | PromiseLike<void>;
}

/** Runs finalize from `from`; resolves true when a stage was left running past the limit (it may still write). */
export async function runFinalize(host: FinalizeHost, abort: LazyAbort, limitMs: number, from: number, now: () => number): Promise<boolean> {
  const stages = host.pipeline.finalize;
  const limit = new FinalizeLimit(abort, limitMs, now());
  const first = firstSlot(host.pipeline, 'finalize');
  let leftRunning = false;
  let boundary = now();
  try {
    for (let index = from; index < stages.length; index++) {
      const stage = stages[index]!;
      if (abort.aborted) {
        host.warnings.push({ stage: stage.name, message: `skipped: the finalize time limit of ${limitMs} ms had passed` });
        continue;
      }
      let signal: Signal | void = undefined;
      try {
        const returned = host.dispatch(stage, 'finalize');
        const outcome = isPromiseLike(returned) ? await Promise.race([returned, limit.wait(now)]) : returned;
        if (outcome === expired) {
          leftRunning = true;
          host.warnings.push({ stage: stage.name, message: `did not finish within the finalize time limit of ${limitMs} ms` });
        } else {
          signal = host.finished(stage, outcome);
        }
      } catch (error) {
        host.warnings.push({ stage: stage.name, message: messageOf(error), cause: error });
      } finally {
        const end = now();
        host.timings[first + 2 * index]! += 1;
        host.timings[first + 2 * index + 1]! += end - boundary;
        boundary = end;
      }
      try {
        const pending = host.boundary(stage, index + 1, signal);
        if (pending !== undefined) await pending;
      } catch (error) {
        host.warnings.push({ stage: stage.name, message: `could not record the stage: ${messageOf(error)}`, cause: error });
      }
    }
  } finally {
    limit.clear();
  }
  return leftRunning;
}

/** The limit counts from finalize's start; its timers are armed only once a finalize stage waits. */
class FinalizeLimit {
  private expiry: Promise<typeof expired> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly abort: LazyAbort, private readonly limitMs: number, private readonly started: number) {}

  wait(now: () => number): Promise<typeof expired> {
    this.expiry ??= new Promise<typeof expired>((resolve) => {
      this.timer = setTimeout(() => {
        this.abort.abort(new Error('finalize time limit reached'));
        this.timer = setTimeout(resolve, finalizeGraceMs, expired);
      }, Math.max(0, this.limitMs - (now() - this.started)));
    });
    return this.expiry;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
