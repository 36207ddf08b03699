// The run's abort: the caller's signal, deadlines set by stages, and when to stop waiting for a stage that ignores it.
import { StageloopError } from '../common/stageloop-error.js';
import { LazyAbort } from '../common/lazy-abort.js';
import { isErrorNamed, messageOf } from '../common/error-message.js';
import { leftBehind } from './stage-loop.js';
import type { Clock } from './stage.js';

/** The abort reason used when a stage's deadline passes, so the run ends as stopped rather than cancelled. */
export class DeadlineReached extends StageloopError {
  constructor(
    readonly stage: string,
    readonly kind: string,
    message: string,
  ) {
    super('internal', message);
  }
}

export class RunAbort {
  readonly controller = new LazyAbort();
  /** The stage that was running when the abort came: it is the one a cancelled run names. */
  stageAtAbort = '';
  deadlineSet = false;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private giveUp: ((value: typeof leftBehind) => void) | undefined;
  private givenUp: Promise<typeof leftBehind> | undefined;
  private abortedAt = 0;
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    /** The clock stages read: a deadline's `at` is on it. */
    private readonly clock: Clock,
    /** The real clock, for how long the grace has run. */
    private readonly realClock: Clock,
    private readonly currentStage: () => string,
    /** How long a stage may take to notice the abort before the runner stops waiting for it. */
    readonly graceMs: number,
  ) {
    if (callerSignal === undefined) return;
    this.onCallerAbort = () => this.fire(callerSignal.reason);
    if (callerSignal.aborted) this.onCallerAbort();
    else callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get aborted(): boolean {
    return this.controller.aborted;
  }

  /** True once anything can abort the run: a caller's signal, a deadline, or an abort that already happened. */
  get abortable(): boolean {
    return this.callerSignal !== undefined || this.deadlineSet || this.controller.aborted;
  }

  fire(reason: unknown): void {
    if (this.controller.aborted) return;
    this.stageAtAbort = this.currentStage();
    this.abortedAt = this.realClock.now();
    this.controller.abort(reason);
    if (this.giveUp !== undefined) this.graceTimer = setTimeout(this.giveUp, this.graceMs, leftBehind);
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.deadlineSet = true;
    const stage = this.currentStage();
    clearTimeout(this.deadlineTimer);
    const fire = () => this.fire(new DeadlineReached(stage, kind, reason));
    const delay = at - this.clock.now();
    if (delay <= 0) fire();
    else this.deadlineTimer = setTimeout(fire, delay);
  }

  /** Settles `graceMs` after the abort; made once per run, and only when a stage is awaited while abortable. */
  gracePassed(): Promise<typeof leftBehind> {
    if (this.givenUp === undefined) {
      this.givenUp = new Promise<typeof leftBehind>((resolve) => (this.giveUp = resolve));
      if (this.controller.aborted) {
        const left = Math.max(0, this.graceMs - (this.realClock.now() - this.abortedAt));
        this.graceTimer = setTimeout(this.giveUp!, left, leftBehind);
      }
    }
    return this.givenUp;
  }

  /** What the run's stop reason says about this abort. */
  describe(): { status: 'stopped' | 'cancelled'; kind: string; stage: string; message: string } {
    const reason: unknown = this.controller.reason;
    if (isDeadline(reason))
      return { status: 'stopped', kind: reason.kind, stage: reason.stage, message: reason.message };
    return { status: 'cancelled', kind: 'cancelled', stage: this.stageAtAbort, message: cancelMessage(reason) };
  }

  dispose(): void {
    if (this.onCallerAbort !== undefined) this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    clearTimeout(this.deadlineTimer);
    clearTimeout(this.graceTimer);
  }
}

/** Keeps the caller's own reason; the platform's default AbortError says nothing worth repeating. */
function cancelMessage(reason: unknown): string {
  const base = 'the run was cancelled by its caller';
  if (reason === undefined) return base;
  const text = messageOf(reason);
  if (isErrorNamed(reason, 'AbortError') && text === 'This operation was aborted') return base;
  return `${base}: ${text}`;
}

function isDeadline(reason: unknown): reason is DeadlineReached {
  try {
    return reason instanceof DeadlineReached;
  } catch {
    return false;
  }
}
