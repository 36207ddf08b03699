// The runner: dispatches the three zones of a pipeline over one RunState. Everything else is a stage.
import { performance } from 'node:perf_hooks';
import { randomFillSync } from 'node:crypto';
import { isPipeline, zones, type Pipeline } from './pipeline.js';
import { LazyAbort } from '../common/lazy-abort.js';
import { isPromiseLike } from '../common/promise-like.js';
import { isSignal, type Signal } from './signal.js';
import type { Deps, RunEvent, RunTracer, Stage, StageContext, StageReturn, Zone } from './stage.js';
import { createRunState, type RunInput, type RunOutcome, type RunState, type RunStatus, type StopReason, type Usage } from './state.js';
import { messageOf } from '../common/error-message.js';

export type { RunStatus, StopReason };

export interface StageStats {
  zone: Zone;
  name: string;
  calls: number;
  totalMs: number;
}

export interface RunError {
  stage: string;
  zone: Zone;
  iteration: number;
  message: string;
  cause: unknown;
}

/** A finalize problem: kept on the result, never replacing the run's own status. */
export interface RunWarning {
  stage: string;
  message: string;
  cause?: unknown;
}

export interface RunResult {
  runId: string;
  pipeline: string;
  status: RunStatus;
  answer: string | null;
  partial: boolean;
  stopReason: StopReason;
  iterations: number;
  usage: Usage;
  stages: StageStats[];
  state: RunState;
  error?: RunError;
  warnings: RunWarning[];
}

export interface RunOptions {
  deps?: Partial<Deps>;
  signal?: AbortSignal;
  /** Time limit for the whole finalize zone, in ms (default 10,000). */
  finalizeTimeoutMs?: number;
}

const systemClock = { now: () => Date.now() };
/** Run ids: 128 random bits as 32 hex digits, cut from a pool filled 256 ids at a time (one flat string each). */
const idPool = Buffer.allocUnsafe(16 * 256);
let idOffset = idPool.length;
const randomIds = {
  newId(): string {
    if (idOffset === idPool.length) {
      randomFillSync(idPool);
      idOffset = 0;
    }
    idOffset += 16;
    return idPool.toString('hex', idOffset - 16, idOffset);
  },
};
const finalizeExpired = Symbol('finalize-expired');

/** The abort reason used when a stage's deadline passes, so the run ends as stopped rather than cancelled. */
class DeadlineReached extends Error {
  constructor(readonly stage: string, readonly kind: string, message: string) {
    super(message);
  }
}

/** Runs a pipeline to the end. Resolves for every outcome; rejects only on invalid arguments. */
export function runPipeline(pipeline: Pipeline, input: RunInput, options: RunOptions = {}): Promise<RunResult> {
  // Not an async function: a parked run holds one async frame less.
  try {
    const run = prepare(pipeline, input, options);
    const tracer = run.tracer;
    return tracer ? tracer.run({ runId: run.state.runId, pipeline: pipeline.name }, () => run.execute()) : run.execute();
  } catch (error) {
    return Promise.reject(error);
  }
}

function prepare(pipeline: Pipeline, input: RunInput, options: RunOptions): Run {
  if (!isPipeline(pipeline)) throw new TypeError('runPipeline: the first argument must be a pipeline made by definePipeline()');
  if (typeof input !== 'object' || input === null || typeof input.task !== 'string') {
    throw new TypeError('runPipeline: input must be an object like { task: "..." }');
  }
  const finalizeTimeoutMs = options.finalizeTimeoutMs ?? 10_000;
  if (!(finalizeTimeoutMs > 0)) throw new TypeError('runPipeline: finalizeTimeoutMs must be a positive number of milliseconds');
  const deps: Deps = { clock: systemClock, ids: randomIds, ...options.deps };
  return new Run(pipeline, createRunState(deps.ids.newId(), pipeline.name, input), deps, options.signal, finalizeTimeoutMs);
}

/** One run's private bookkeeping; the pipeline and its stages hold none. */
class Run {
  /** Aborted by the caller's signal or a deadline; finalize has its own, with its time limit. */
  readonly runAbort = new LazyAbort();
  finalizeAbort: LazyAbort | undefined;
  /** The run's tracer, unless it says at the start that it records nothing: then the run takes the untraced path. */
  readonly tracer: RunTracer | undefined;
  private readonly ctx: RunContext;
  private readonly timings: number[];
  private readonly warnings: RunWarning[] = [];
  private steer: { signal: Signal; stage: string } | undefined;
  private breakRequested = false;
  private ended: RunOutcome | undefined;
  private error: RunError | undefined;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private deadlineSet = false;
  private finalizeExpired: ((value: typeof finalizeExpired) => void) | undefined;
  private finalizeExpiry: Promise<typeof finalizeExpired> | undefined;
  private finalizeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly pipeline: Pipeline,
    readonly state: RunState,
    readonly deps: Deps,
    private readonly callerSignal: AbortSignal | undefined,
    private readonly finalizeTimeoutMs: number,
  ) {
    this.timings = new Array<number>(2 * (pipeline.setup.length + pipeline.iteration.length + pipeline.finalize.length)).fill(0);
    this.ctx = new RunContext(this, deps);
    this.tracer = tracerEnabled(deps.tracer) ? deps.tracer : undefined;
  }

  async execute(): Promise<RunResult> {
    const callerSignal = this.callerSignal;
    const onCallerAbort = callerSignal === undefined ? undefined : () => this.runAbort.abort(callerSignal.reason);
    if (callerSignal?.aborted) onCallerAbort?.();
    else if (onCallerAbort !== undefined) callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    if (this.ctx.observed) this.emit('run_started', { pipeline: this.pipeline.name, task: this.state.input.task });
    try {
      await this.runZone('setup', false);
      const tracer = this.tracer;
      if (tracer) {
        while (this.nextIteration()) await tracer.iteration({ runId: this.state.runId, iteration: this.state.iteration }, () => this.runZone('iteration', false));
      } else if (this.nextIteration()) {
        await this.runZone('iteration', true);
      }
    } finally {
      if (onCallerAbort !== undefined) callerSignal?.removeEventListener('abort', onCallerAbort);
      clearTimeout(this.deadlineTimer);
    }
    // Finalize stages (a summary, say) learn how the run ended from the state, like everything else.
    this.state.stop = this.outcome();
    await this.runFinalize();
    const result = this.result();
    if (this.ctx.observed) this.emit('run_finished', { status: result.status, stopReason: result.stopReason });
    return result;
  }

  /** Starts the next iteration, or says the loop is over (a stage ended it, or the cap is reached). */
  private nextIteration(): boolean {
    if (this.ended !== undefined || this.breakRequested) return false;
    if (this.state.iteration >= this.pipeline.maxIterations) {
      this.end('stopped', 'max_iterations', null, `reached the iteration cap of ${this.pipeline.maxIterations}`);
      return false;
    }
    this.ctx.iteration = ++this.state.iteration;
    return true;
  }

  /** Runs a zone's stages once, or with `wholeLoop` every iteration in this one async frame (no tracer to wrap each). */
  private async runZone(zone: 'setup' | 'iteration', wholeLoop: boolean): Promise<void> {
    this.ctx.zone = zone;
    const stages = this.pipeline[zone];
    const timings = this.timings;
    const first = zone === 'setup' ? 0 : 2 * this.pipeline.setup.length;
    // One clock read per stage boundary: a stage's time runs from the previous boundary to its end.
    let boundary = performance.now();
    do {
      for (let index = 0; index < stages.length; index++) {
        const stage = stages[index]!;
        if (this.runAbort.aborted) return this.endByAbort(stage.name);
        let signal: Signal | void;
        try {
          const returned = this.dispatch(stage, zone);
          signal = this.finished(stage, isPromiseLike(returned) ? await returned : returned);
        } catch (error) {
          if (this.runAbort.aborted) return this.endByAbort(stage.name);
          this.error = { stage: stage.name, zone, iteration: this.state.iteration, message: messageOf(error), cause: error };
          return this.end('failed', 'error', stage.name, `stage "${stage.name}" failed: ${messageOf(error)}`);
        } finally {
          const now = performance.now();
          timings[first + 2 * index]! += 1;
          timings[first + 2 * index + 1]! += now - boundary;
          boundary = now;
        }
        if (signal === undefined) continue;
        if (this.steer === undefined) this.steer = { signal, stage: stage.name };
        if (signal.type === 'abort_run') {
          const first = this.steer.signal;
          return this.end(first.type === 'abort_run' ? 'stopped' : 'completed', first.kind, this.steer.stage, first.reason);
        }
        this.breakRequested = true;
      }
    } while (wholeLoop && this.nextIteration());
  }

  private async runFinalize(): Promise<void> {
    const finalizeAbort = (this.finalizeAbort = new LazyAbort());
    this.ctx.zone = 'finalize';
    const stages = this.pipeline.finalize;
    const started = performance.now();
    let boundary = started;
    try {
      for (let index = 0; index < stages.length; index++) {
        const stage = stages[index]!;
        if (finalizeAbort.aborted) {
          this.warnings.push({ stage: stage.name, message: `skipped: the finalize time limit of ${this.finalizeTimeoutMs} ms had passed` });
          continue;
        }
        try {
          const returned = this.dispatch(stage, 'finalize');
          const outcome = isPromiseLike(returned) ? await Promise.race([returned, this.finalizeLimit(started)]) : returned;
          if (outcome === finalizeExpired) {
            this.warnings.push({ stage: stage.name, message: `did not finish within the finalize time limit of ${this.finalizeTimeoutMs} ms` });
          } else {
            this.finished(stage, outcome);
          }
        } catch (error) {
          this.warnings.push({ stage: stage.name, message: messageOf(error), cause: error });
        } finally {
          const now = performance.now();
          const slot = 2 * (this.pipeline.setup.length + this.pipeline.iteration.length + index);
          this.timings[slot]! += 1;
          this.timings[slot + 1]! += now - boundary;
          boundary = now;
        }
      }
    } finally {
      clearTimeout(this.finalizeTimer);
    }
  }

  /** Settles when the finalize time limit (counted from `started`) passes; armed only once a finalize stage waits. */
  private finalizeLimit(started: number): Promise<typeof finalizeExpired> {
    if (this.finalizeExpiry === undefined) {
      this.finalizeExpiry = new Promise<typeof finalizeExpired>((resolve) => (this.finalizeExpired = resolve));
      this.finalizeTimer = setTimeout(expireFinalize, Math.max(0, this.finalizeTimeoutMs - (performance.now() - started)), this);
    }
    return this.finalizeExpiry;
  }

  /** The finalize time limit passed: abort the finalize signal and stop waiting for the stage in flight. */
  expireFinalize(): void {
    this.finalizeAbort?.abort(new Error('finalize time limit reached'));
    this.finalizeExpired?.(finalizeExpired);
  }

  /** Starts a stage; returns what it returned as is, so a dispatch costs no async frame of its own. */
  private dispatch(stage: Stage, zone: Zone): StageReturn {
    this.ctx.stage = stage.name;
    if (this.ctx.observed) this.emit('stage_started', {});
    const tracer = this.tracer;
    return tracer
      ? tracer.stage({ runId: this.state.runId, name: stage.name, zone, iteration: this.state.iteration }, () => stage.execute(this.state, this.ctx))
      : stage.execute(this.state, this.ctx);
  }

  /** Checks what a stage returned and reports its end. */
  private finished(stage: Stage, signal: Signal | void): Signal | void {
    if (signal !== undefined && !isSignal(signal)) {
      throw new TypeError(`stage "${stage.name}" returned something that is not a signal: return nothing, breakLoop() or abortRun()`);
    }
    if (this.ctx.observed) this.emit('stage_finished', signal ? { signal: signal.type, kind: signal.kind, reason: signal.reason } : {});
    return signal;
  }

  private end(status: RunStatus, kind: string, stage: string | null, message: string): void {
    this.ended ??= { status, kind, stage, message };
  }

  private endByAbort(stage: string): void {
    const reason: unknown = this.runAbort.reason;
    if (reason instanceof DeadlineReached) this.end('stopped', reason.kind, reason.stage, reason.message);
    else this.end('cancelled', 'cancelled', stage, 'the run was cancelled by its caller');
  }

  /** True once anything can abort the run: a caller's signal, a deadline, or an abort that already happened. */
  get abortable(): boolean {
    return this.callerSignal !== undefined || this.deadlineSet || this.runAbort.aborted;
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.deadlineSet = true;
    const stage = this.ctx.stage;
    clearTimeout(this.deadlineTimer);
    const fire = () => this.runAbort.abort(new DeadlineReached(stage, kind, reason));
    const delay = at - this.deps.clock.now();
    if (delay <= 0) fire();
    else this.deadlineTimer = setTimeout(fire, delay);
  }

  emit(type: string, data: Record<string, unknown>): void {
    const onEvent = this.deps.onEvent;
    if (onEvent === undefined) return;
    const event: RunEvent = {
      runId: this.state.runId,
      type,
      zone: type.startsWith('run_') ? null : this.ctx.zone,
      stage: type.startsWith('run_') ? null : this.ctx.stage,
      iteration: this.state.iteration,
      at: this.deps.clock.now(),
      data,
    };
    try {
      onEvent(event);
    } catch {
      // An observer's bug must not change the run's outcome.
    }
  }

  private outcome(): RunOutcome {
    if (this.ended) return { ...this.ended };
    if (this.steer) return { status: 'completed', kind: this.steer.signal.kind, stage: this.steer.stage, message: this.steer.signal.reason };
    return { status: 'completed', kind: 'completed', stage: null, message: 'the run finished' };
  }

  private stageStats(): StageStats[] {
    const stats: StageStats[] = [];
    for (let zoneIndex = 0; zoneIndex < zones.length; zoneIndex++) {
      const zone = zones[zoneIndex]!;
      const stages = this.pipeline[zone];
      for (let index = 0; index < stages.length; index++) {
        const slot = 2 * stats.length;
        stats.push({ zone, name: stages[index]!.name, calls: this.timings[slot]!, totalMs: this.timings[slot + 1]! });
      }
    }
    return stats;
  }

  private result(): RunResult {
    const { status, kind, stage, message } = this.outcome();
    const result: RunResult = {
      runId: this.state.runId,
      pipeline: this.pipeline.name,
      status,
      answer: this.state.answer ?? null,
      partial: this.state.partial ?? false,
      stopReason: { kind, stage, message },
      iterations: this.state.iteration,
      usage: this.state.usage,
      stages: this.stageStats(),
      state: this.state,
      warnings: this.warnings,
    };
    if (this.error) result.error = this.error;
    return result;
  }
}

function expireFinalize(run: Run): void {
  run.expireFinalize();
}

/**
 * What a stage sees of its run. The signal is read through the run, so it is only made when a stage asks for it.
 * Every member is an own property, as on a plain object: a stage may destructure or spread its context.
 */
class RunContext implements StageContext {
  zone: Zone = 'setup';
  iteration = 0;
  stage = '';
  readonly observed: boolean;
  declare readonly signal: AbortSignal;
  declare readonly signalIfAbortable: AbortSignal | undefined;
  readonly #run: Run;

  constructor(run: Run, readonly deps: Deps) {
    this.#run = run;
    this.observed = deps.onEvent !== undefined;
    // Bound own copies so a stage may destructure them; assigned here, not declared as class fields (which made a
    // bench turn twice as slow).
    this.emit = this.emit.bind(this);
    this.setDeadline = this.setDeadline.bind(this);
    Object.defineProperty(this, 'signal', RunContext.#signalProperty);
    Object.defineProperty(this, 'signalIfAbortable', RunContext.#signalIfAbortableProperty);
  }

  emit(type: string, data?: Record<string, unknown>): void {
    this.#run.emit(type, data ?? {});
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.#run.setDeadline(at, reason, kind);
  }

  /** One shared getter for every context, so they keep one hidden class. */
  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: RunContext) {
      const run = this.#run;
      return this.zone === 'finalize' && run.finalizeAbort !== undefined ? run.finalizeAbort.signal : run.runAbort.signal;
    },
  };

  static readonly #signalIfAbortableProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: RunContext) {
      // Finalize always has its time limit.
      return this.zone === 'finalize' || this.#run.abortable ? this.signal : undefined;
    },
  };
}

/** A tracer is used unless its `enabled()` says false; one that throws there is used, so no trace is lost silently. */
function tracerEnabled(tracer: RunTracer | undefined): boolean {
  if (tracer === undefined) return false;
  try {
    return tracer.enabled?.() !== false;
  } catch {
    return true;
  }
}

