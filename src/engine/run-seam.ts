// The one seam through which durability (journal, checkpoints, resume, replay) enters a run: its stage boundaries.
import { messageOf } from '../common/error-message.js';
import type { TraceHeaders } from '../common/trace-headers.js';
import { currentBranch } from './run-scope.js';
import type { OutcomeTracker, Steer } from './run-outcome.js';
import type { RunResult, RunWarning } from './run-result.js';
import type { Signal } from './signal.js';
import type { Deps, Zone } from './stage.js';
import type { RunOutcome, RunState } from './state.js';

/** Where the runner stands at a stage boundary: enough to continue from exactly there. */
export interface RunPosition {
  zone: Zone;
  iteration: number;
  /** Index of the next stage to run in that zone's list (its length once the zone's pass is done). */
  nextStage: number;
  steer: Steer | null;
  breakRequested: boolean;
  ended: RunOutcome | null;
}

/** Where a run is right now, as the ports' wrappers see it (the run's stage context). */
export interface RunCursor {
  readonly zone: Zone;
  readonly iteration: number;
  readonly stage: string;
}

export interface RunSeam {
  /** The ports the run uses (recording or replaying model, tools, clock, ids); called once, before the first stage. */
  wrapDeps?(deps: Deps, cursor: RunCursor): Deps;
  /**
   * After every stage (`stage` is its name) and on entering finalize (`stage` null). A promise is awaited; a throw ends
   * the run `failed` with kind `store` (in finalize it becomes a warning).
   */
  boundary(
    state: RunState,
    position: RunPosition,
    stage: string | null,
    signal: Signal | undefined,
  ): void | PromiseLike<void>;
  /** With the result, before runPipeline resolves; a throw becomes a warning. */
  finished?(result: RunResult): void | PromiseLike<void>;
  /** The root span's context of the run's first trace, when the recording kept one (a resume links to it). */
  readonly firstTrace?: TraceHeaders | undefined;
  /** Once the run's root span exists (tracing on): its context, for the recording to keep. */
  rootSpanStarted?(root: TraceHeaders): void;
}

/** A run continued from a checkpoint: its state and position instead of a fresh start. */
export interface RunStart {
  state: RunState;
  position: RunPosition;
}

/** The runner's side of the seam: builds positions, calls it, and turns its failures into the run's ending. */
export class SeamCaller {
  constructor(
    private readonly seam: RunSeam,
    private readonly state: RunState,
    private readonly outcome: OutcomeTracker,
    private readonly warnings: RunWarning[],
  ) {}

  /** After an iteration or setup stage; false when recording failed and the run has ended because of it. */
  async after(zone: Zone, nextStage: number, stage: string, signal: Signal | void): Promise<boolean> {
    try {
      const pending = this.seam.boundary(this.state, this.position(zone, nextStage), stage, signal ?? undefined);
      if (pending !== undefined) await pending;
      return true;
    } catch (error) {
      this.outcome.end('failed', 'store', stage, `the run could not be recorded: ${messageOf(error)}`);
      return false;
    }
  }

  /** In finalize, where a failure to record is a warning. */
  finalize(nextStage: number, stage: string | null, signal: Signal | void): Promise<void> {
    return this.settle(() =>
      this.seam.boundary(this.state, this.position('finalize', nextStage), stage, signal ?? undefined),
    );
  }

  finished(result: RunResult): Promise<void> {
    return this.settle(() => this.seam.finished?.(result));
  }

  private position(zone: Zone, nextStage: number): RunPosition {
    const { steer, breakRequested, ended } = this.outcome;
    return {
      zone,
      iteration: this.state.iteration,
      nextStage,
      steer: steer && { ...steer },
      breakRequested,
      ended: ended && { ...ended },
    };
  }

  private async settle(call: () => void | PromiseLike<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.warnings.push({ stage: 'store', message: `could not record the run: ${messageOf(error)}`, cause: error });
    }
  }
}

/**
 * A cursor whose fields read the run's context live (the context is made after the ports are wrapped). Work for a
 * plan step running beside others is placed under "stage#step", so each step's calls keep their own order.
 */
export function liveCursor(context: () => RunCursor): RunCursor {
  return {
    get zone() {
      return context().zone;
    },
    get iteration() {
      return context().iteration;
    },
    get stage() {
      const branch = currentBranch();
      return branch?.parallel === true ? `${context().stage}#${branch.step}` : context().stage;
    },
  };
}
