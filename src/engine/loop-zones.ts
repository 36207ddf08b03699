// The rules of setup and iteration: an abort or a failure ends the run, a stage's signal steers it, the seam records
// each boundary (a failure to record ends the run too), and a stage that asks for a decision pauses it.
import { messageOf } from '../common/error-message.js';
import type { RunAbort } from './run-abort.js';
import type { RunContext } from './run-context.js';
import type { OutcomeTracker } from './run-outcome.js';
import type { RunError, RunWarning } from './run-result.js';
import type { SeamCaller } from './run-seam.js';
import type { PendingDecision, Signal } from './signal.js';
import type { leftBehind, ZoneRules } from './stage-loop.js';
import type { Stage, Zone } from './stage.js';
import { inputWriteError, type RunState } from './state.js';

export class LoopZones implements ZoneRules {
  error: RunError | undefined;
  /** Set when a stage paused the run for a decision: finalize does not run. */
  pending: readonly PendingDecision[] | undefined;
  /** A stage the run stopped waiting for: it may still write to the live state. */
  leftRunning = false;

  constructor(
    private readonly abort: RunAbort,
    private readonly outcome: OutcomeTracker,
    private readonly seam: SeamCaller | undefined,
    private readonly state: RunState,
    private readonly ctx: RunContext,
    private readonly warnings: RunWarning[],
    /** Starts the next iteration, or says the loop is over; undefined when each pass is wrapped (traced) on its own. */
    private readonly passes: { nextIteration(): boolean } | undefined,
  ) {}

  get aborted(): boolean {
    return this.abort.aborted;
  }

  abortedBefore(stage: Stage): false {
    const { status, kind, stage: running, message } = this.abort.describe();
    this.outcome.end(status, kind, running || stage.name, message);
    return false;
  }

  /** Cancelled or past a deadline, a stage gets a grace to notice; after it the run goes on without it. */
  wait(returned: PromiseLike<Signal | void>): PromiseLike<Signal | void | typeof leftBehind> {
    return this.abort.abortable ? Promise.race([returned, this.abort.gracePassed()]) : returned;
  }

  /** The stage did not stop within the grace after the abort: the run ends without it. */
  leftBehind(stage: Stage): false {
    this.leftRunning = true;
    const { status, kind, message } = this.abort.describe();
    const note = `stage "${stage.name}" did not stop within ${this.abort.graceMs} ms of the ${status === 'cancelled' ? 'cancel' : 'deadline'} and was left running`;
    this.warnings.push({ stage: stage.name, message: note });
    this.outcome.end(status, kind, stage.name, `${message}; ${note}`);
    return false;
  }

  failed(stage: Stage, thrown: unknown): false {
    if (this.abort.aborted) return this.abortedBefore(stage);
    const error = inputWriteError(thrown, this.state) ?? thrown;
    this.error = {
      stage: stage.name,
      zone: this.ctx.zone,
      iteration: this.state.iteration,
      message: messageOf(error),
      cause: error,
    };
    this.outcome.end('failed', 'error', stage.name, `stage "${stage.name}" failed: ${messageOf(error)}`);
    return false;
  }

  after(stage: Stage, index: number, signal: Signal | void): boolean | Promise<boolean> {
    if (signal !== undefined && signal.type === 'interrupt_run') return this.interrupt(index, stage.name, signal);
    const stop = signal !== undefined && this.outcome.steered(signal, stage.name);
    if (this.seam === undefined) return !stop;
    return this.seam.after(this.ctx.zone, index + 1, stage.name, signal).then((recorded) => recorded && !stop);
  }

  /** Untraced, the whole loop runs in one call (one async frame a run, not one an iteration). */
  again(zone: Zone): boolean {
    return zone === 'iteration' && this.passes !== undefined && this.passes.nextIteration();
  }

  /** The position recorded points at the asking stage itself, so a resume runs it again with the decisions. */
  private async interrupt(index: number, stage: string, signal: Signal): Promise<false> {
    if (this.seam !== undefined && !(await this.seam.after(this.ctx.zone, index, stage, signal))) return false;
    this.pending = signal.pending ?? [];
    this.outcome.end('interrupted', signal.kind, stage, signal.reason);
    return false;
  }
}
