// The finalize zone's rules: every stage runs once, whatever happened before; its problems become warnings; it has a
// time limit, after which a stage still running is left behind and the rest are skipped.
import { performance } from 'node:perf_hooks';
import { LazyAbort } from '../common/lazy-abort.js';
import { messageOf } from '../common/error-message.js';
import type { RunWarning } from './run-result.js';
import type { Signal } from './signal.js';
import { leftBehind, type ZoneRules } from './stage-loop.js';
import type { Stage } from './stage.js';

/** After the limit aborts a finalize stage, how long it may take to write its fallback before it is left behind. */
const finalizeGraceMs = 100;

export interface FinalizeHost {
  readonly warnings: RunWarning[];
  /** The durability seam after each finalize stage; its failures are warnings here. */
  /** Records the boundary; never rejects (a failure to record is the host's warning, and finalize goes on). */
  boundary(stage: Stage, nextStage: number, signal: Signal | void): void | PromiseLike<void>;
}

export class FinalizeZone implements ZoneRules {
  /** The zone's own abort: what `ctx.signal` is in finalize. */
  readonly abort = new LazyAbort();
  /** True once a stage was left running past the limit: it may still write to the state. */
  leftRunning = false;
  private readonly started = performance.now();
  private expiry: Promise<typeof leftBehind> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: FinalizeHost,
    private readonly limitMs: number,
  ) {}

  get aborted(): boolean {
    return this.abort.aborted;
  }

  abortedBefore(stage: Stage): boolean {
    this.host.warnings.push({
      stage: stage.name,
      message: `skipped: the finalize time limit of ${this.limitMs} ms had passed`,
    });
    return true;
  }

  wait(returned: PromiseLike<Signal | void>): Promise<Signal | void | typeof leftBehind> {
    return Promise.race([returned, this.expired()]);
  }

  leftBehind(stage: Stage): boolean {
    this.leftRunning = true;
    this.host.warnings.push({
      stage: stage.name,
      message: `did not finish within the finalize time limit of ${this.limitMs} ms`,
    });
    return true;
  }

  failed(stage: Stage, error: unknown): boolean {
    this.host.warnings.push({ stage: stage.name, message: messageOf(error), cause: error });
    return true;
  }

  after(stage: Stage, index: number, signal: Signal | void): boolean | Promise<boolean> {
    const pending = this.host.boundary(stage, index + 1, signal);
    return pending === undefined ? true : Promise.resolve(pending).then(() => true);
  }

  again(): false {
    return false;
  }

  /** Ends the zone's timers once its stages are done. */
  close(): void {
    clearTimeout(this.timer);
  }

  /** The limit counts from finalize's start; its timers are armed only once a finalize stage waits. */
  private expired(): Promise<typeof leftBehind> {
    this.expiry ??= new Promise<typeof leftBehind>((resolve) => {
      this.timer = setTimeout(
        () => {
          this.abort.abort(new Error('finalize time limit reached'));
          this.timer = setTimeout(resolve, finalizeGraceMs, leftBehind);
        },
        Math.max(0, this.limitMs - (performance.now() - this.started)),
      );
    });
    return this.expiry;
  }
}
