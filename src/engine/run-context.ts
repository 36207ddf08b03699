// What a stage sees of its run. The signal is read through the run, so it is only made when a stage asks for it.
import type { LazyAbort } from '../common/lazy-abort.js';
import { deliver } from './run-events.js';
import type { Clock, Deps, EmitData, RunEventType, StageContext, Zone } from './stage.js';

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
  readonly observed: boolean;
  declare readonly signal: AbortSignal;
  declare readonly signalIfAbortable: AbortSignal | undefined;
  readonly #host: ContextHost;
  readonly #runId: string;
  readonly #eventClock: Clock;
  /** The seq of the latest event delivered. */
  #eventSeq = 0;

  /** `eventClock` is the real clock: event times are not part of what a replay must reproduce. */
  constructor(host: ContextHost, readonly deps: Deps, runId: string, eventClock: Clock) {
    this.#host = host;
    this.#runId = runId;
    this.#eventClock = eventClock;
    this.observed = deps.onEvent !== undefined;
    // Bound own copies so a stage may destructure them; assigned here, not declared as class fields (which made a
    // bench turn twice as slow).
    this.emit = this.emit.bind(this);
    this.setDeadline = this.setDeadline.bind(this);
    Object.defineProperty(this, 'signal', RunContext.#signalProperty);
    Object.defineProperty(this, 'signalIfAbortable', RunContext.#signalIfAbortableProperty);
  }

  emit<Type extends RunEventType>(type: Type, ...data: EmitData<Type>): void {
    this.report(type, data[0] ?? {});
  }

  /** The runner's own events, whose data it has built itself. */
  report(type: RunEventType, data: object): void {
    const onEvent = this.deps.onEvent;
    if (onEvent !== undefined) deliver(onEvent, type, { runId: this.#runId, seq: ++this.#eventSeq, zone: this.zone, stage: this.stage, iteration: this.iteration, at: this.#eventClock.now() }, data);
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.#host.setDeadline(at, reason, kind);
  }

  /** One shared getter for every context, so they keep one hidden class. */
  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: RunContext) {
      const host = this.#host;
      return this.zone === 'finalize' && host.finalizeSignal !== undefined ? host.finalizeSignal.signal : host.runSignal.signal;
    },
  };

  static readonly #signalIfAbortableProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: RunContext) {
      // Finalize always has its time limit.
      return this.zone === 'finalize' || this.#host.abortable ? this.signal : undefined;
    },
  };
}
