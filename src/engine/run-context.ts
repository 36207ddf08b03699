// What a stage sees of its run. The signal is read through the run, so it is only made when a stage asks for it and
// something can abort the run; event data given as a function is built only when someone listens.
import type { LazyAbort } from '../common/lazy-abort.js';
import { deliver } from './run-events.js';
import type { Clock, Deps, RunEventType, StageContext, Zone } from './stage.js';

/** The emit of a run nobody listens to. */
function ignoreEvent(): void {}

/** The part of a run its context reads. */
export interface ContextHost {
  readonly runSignal: LazyAbort;
  readonly finalizeSignal: LazyAbort | undefined;
  readonly abortable: boolean;
  setDeadline(at: number, reason: string, kind: string): void;
}

/** Every member is an own property, as on a plain object: a stage may destructure or spread its context. */
export class RunContext implements StageContext {
  zone: Zone = 'setup';
  iteration = 0;
  stage = '';
  declare readonly signal: AbortSignal | undefined;
  readonly #host: ContextHost;
  readonly #runId: string;
  readonly #eventClock: Clock;
  /** The seq of the latest event delivered. */
  #eventSeq = 0;

  /** `eventClock` is the real clock: event times are not part of what a replay must reproduce. */
  constructor(
    host: ContextHost,
    readonly deps: Deps,
    runId: string,
    eventClock: Clock,
  ) {
    this.#host = host;
    this.#runId = runId;
    this.#eventClock = eventClock;
    // Bound own copies so a stage may destructure them; assigned here, not declared as class fields (which made a
    // bench turn twice as slow).
    // Nobody listening: one shared empty emit, which the JIT can inline (and then skip the stage's data function).
    this.emit = deps.onEvent === undefined ? ignoreEvent : this.emit.bind(this);
    this.setDeadline = this.setDeadline.bind(this);
    Object.defineProperty(this, 'signal', RunContext.#signalProperty);
  }

  /** Not a rest parameter (one array a call): the type StageContext gives emit checks the data against RunEvents. */
  emit(type: RunEventType, data?: object | (() => object)): void {
    if (this.deps.onEvent !== undefined) this.report(type, typeof data === 'function' ? data() : (data ?? {}));
  }

  /** True when someone listens (deps.onEvent): the runner builds its own events' data only then. Not for stages. */
  get listening(): boolean {
    return this.deps.onEvent !== undefined;
  }

  /** The runner's own events, whose data it has built itself. */
  report(type: RunEventType, data: object): void {
    const onEvent = this.deps.onEvent;
    if (onEvent !== undefined)
      deliver(
        onEvent,
        type,
        {
          runId: this.#runId,
          seq: ++this.#eventSeq,
          zone: this.zone,
          stage: this.stage,
          iteration: this.iteration,
          at: this.#eventClock.now(),
        },
        data,
      );
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.#host.setDeadline(at, reason, kind);
  }

  /** One shared getter for every context, so they keep one hidden class. Finalize always has its time limit. */
  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: RunContext): AbortSignal | undefined {
      const host = this.#host;
      if (this.zone === 'finalize' && host.finalizeSignal !== undefined) return host.finalizeSignal.signal;
      return this.zone === 'finalize' || host.abortable ? host.runSignal.signal : undefined;
    },
  };
}
