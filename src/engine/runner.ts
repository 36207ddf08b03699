// The runner: dispatches the three zones of a pipeline over one RunState. Everything else is a stage or a helper
// beside this file (abort and deadlines, finalize, outcome, result, timings, tracer, the durability seam).
import { performance } from 'node:perf_hooks';
import { LazyAbort } from '../common/lazy-abort.js';
import { isPromiseLike } from '../common/promise-like.js';
import { messageOf } from '../common/error-message.js';
import type { Pipeline } from './pipeline.js';
import { isSignal, type PendingDecision, type Signal } from './signal.js';
import type { Deps, RunEventType, RunTracer, Stage, StageReturn, Zone } from './stage.js';
import { createRunState, freezeInput, inputWriteError, type RunInput, type RunState, type RunStatus, type StopReason } from './state.js';
import { randomIds, systemClock } from './defaults.js';
import { RunAbort, gaveUp } from './run-abort.js';
import { RunContext, type ContextHost } from './run-context.js';
import { deliver } from './run-events.js';
import { checkArguments, type CheckedOptions, type RunOptions } from './run-options.js';
import { OutcomeTracker } from './run-outcome.js';
import { buildResult, finishedData, type RunError, type RunResult, type RunWarning } from './run-result.js';
import { SeamCaller, liveCursor, type RunPosition } from './run-seam.js';
import { runTracer } from './run-tracer.js';
import { runFinalize, type FinalizeHost } from './finalize-zone.js';
import { firstSlot, newTimings } from './stage-timings.js';

export type { RunStatus, StopReason, RunResult, RunError, RunWarning, RunOptions };
export type { StageStats } from './stage-timings.js';

/** Runs a pipeline to the end. Resolves for every outcome; rejects only on invalid arguments. */
export function runPipeline(pipeline: Pipeline, input: RunInput, options: RunOptions = {}): Promise<RunResult> {
  // Not an async function: a parked run holds one async frame less.
  try {
    const checked = checkArguments(pipeline, input, options);
    const deps: Deps = { clock: systemClock, ids: randomIds, ...options.deps };
    const state = options.start?.state ?? createRunState(deps.ids.newId(), pipeline.name, input);
    const run = new Run(pipeline, state, deps, options, checked);
    const tracer = run.tracer;
    return tracer ? tracer.run({ runId: state.runId, pipeline: pipeline.name }, () => run.execute()) : run.execute();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One run's private bookkeeping; the pipeline and its stages hold none. */
class Run implements ContextHost, FinalizeHost {
  readonly abort: RunAbort;
  finalizeSignal: LazyAbort | undefined;
  readonly tracer: RunTracer | undefined;
  readonly timings: number[];
  readonly warnings: RunWarning[] = [];
  private readonly ctx: RunContext;
  private readonly outcome = new OutcomeTracker();
  private readonly seam: SeamCaller | undefined;
  private readonly start: RunPosition | undefined;
  private error: RunError | undefined;
  /** Set when a stage paused the run for a decision: finalize does not run. */
  private pending: readonly PendingDecision[] | undefined;
  /** A stage the run stopped waiting for: it may still write to the live state. */
  private leftRunning = false;
  private readonly eventClock: Deps['clock'];
  /** The seq of the latest event delivered. */
  private eventSeq = 0;

  constructor(readonly pipeline: Pipeline, readonly state: RunState, deps: Deps, options: RunOptions, private readonly checked: CheckedOptions) {
    this.timings = newTimings(pipeline);
    this.start = options.start?.position;
    if (this.start) Object.assign(this.outcome, { steer: this.start.steer, breakRequested: this.start.breakRequested, ended: this.start.ended });
    if (options.seam) this.seam = new SeamCaller(options.seam, state, this.outcome, this.warnings);
    const wrapped = options.seam?.wrapDeps?.(deps, liveCursor(() => this.ctx)) ?? deps;
    this.ctx = new RunContext(this, wrapped);
    // A run started from a checkpoint is already in its iteration (finalize starts no zone pass that would set it).
    this.ctx.iteration = state.iteration;
    // Deadlines are set from the clock stages read (so a replay sees the same); grace and event times use the real one.
    this.abort = new RunAbort(options.signal, wrapped.clock, deps.clock, () => this.ctx.stage, checked.abandonAfterMs);
    this.eventClock = deps.clock;
    this.tracer = runTracer(wrapped.tracer);
  }

  get runSignal(): LazyAbort {
    return this.abort.controller;
  }

  get abortable(): boolean {
    return this.abort.abortable;
  }

  async execute(): Promise<RunResult> {
    if (this.ctx.observed) this.emit('run_started', { pipeline: this.pipeline.name, task: this.state.input.task });
    const start = this.start;
    const inFinalize = start?.zone === 'finalize';
    try {
      if (start === undefined || start.zone === 'setup') await this.runZone('setup', false, start?.nextStage ?? 0);
      // From here on what the run was asked is fixed (setup may still redact the task).
      freezeInput(this.state);
      if (start?.zone === 'iteration') await this.runZone('iteration', false, start.nextStage);
      const tracer = this.tracer;
      if (inFinalize) {
        // The loop was over when the checkpoint was taken.
      } else if (tracer) {
        while (this.nextIteration()) await tracer.iteration({ runId: this.state.runId, iteration: this.state.iteration }, () => this.runZone('iteration', false, 0));
      } else if (this.nextIteration()) {
        await this.runZone('iteration', true, 0);
      }
    } finally {
      this.abort.dispose();
    }
    // A paused run is not over: finalize waits for the resume.
    if (this.pending === undefined) await this.finalize(inFinalize, inFinalize ? start.nextStage : 0);
    // A stage left running keeps the live state; the result keeps what was true when the run ended.
    const state = this.leftRunning ? structuredClone(this.state) : this.state;
    const result = buildResult({ pipeline: this.pipeline, state, outcome: this.outcome.outcome(), timings: this.timings, warnings: this.warnings, error: this.error, pending: this.pending });
    await this.seam?.finished(result);
    if (this.ctx.observed) this.emit('run_finished', finishedData(result));
    return result;
  }

  private async finalize(inFinalize: boolean, from: number): Promise<void> {
    // Finalize stages (a summary, say) learn how the run ended from the state, like everything else.
    if (!inFinalize) this.state.stop = this.outcome.outcome();
    this.finalizeSignal = new LazyAbort();
    this.ctx.zone = 'finalize';
    if (!inFinalize) await this.seam?.finalize(0, null, undefined);
    if (await runFinalize(this, this.finalizeSignal, this.checked.finalizeTimeoutMs, from, () => performance.now())) this.leftRunning = true;
  }

  /** Starts the next iteration, or says the loop is over (a stage ended it, or the cap is reached). */
  private nextIteration(): boolean {
    if (this.outcome.ended !== null || this.outcome.breakRequested) return false;
    if (this.state.iteration >= this.pipeline.maxIterations) {
      this.outcome.end('stopped', 'max_iterations', null, `reached the iteration cap of ${this.pipeline.maxIterations}`);
      return false;
    }
    this.ctx.iteration = ++this.state.iteration;
    return true;
  }

  /** Runs a zone's stages once from `from`, or with `wholeLoop` every iteration in this one async frame. */
  private async runZone(zone: 'setup' | 'iteration', wholeLoop: boolean, from: number): Promise<void> {
    this.ctx.zone = zone;
    this.ctx.iteration = this.state.iteration;
    const { timings, abort, seam } = this;
    const stages = this.pipeline[zone];
    const first = firstSlot(this.pipeline, zone);
    // One clock read per stage boundary: a stage's time runs from the previous boundary to its end.
    let boundary = performance.now();
    let index = from;
    do {
      for (; index < stages.length; index++) {
        const stage = stages[index]!;
        if (abort.aborted) return this.endByAbort(stage.name);
        let signal: Signal | void;
        try {
          const returned = this.dispatch(stage, zone);
          if (!isPromiseLike(returned)) signal = this.finished(stage, returned);
          else if (!abort.abortable) signal = this.finished(stage, await returned);
          else {
            // Cancelled or past a deadline, a stage gets a grace to notice; after it the run goes on without it.
            const settled = await Promise.race([returned, abort.gracePassed()]);
            if (settled === gaveUp) return this.abandon(stage.name);
            signal = this.finished(stage, settled);
          }
        } catch (thrown) {
          if (abort.aborted) return this.endByAbort(stage.name);
          const error = inputWriteError(thrown, this.state) ?? thrown;
          this.error = { stage: stage.name, zone, iteration: this.state.iteration, message: messageOf(error), cause: error };
          return this.outcome.end('failed', 'error', stage.name, `stage "${stage.name}" failed: ${messageOf(error)}`);
        } finally {
          const now = performance.now();
          timings[first + 2 * index]! += 1;
          timings[first + 2 * index + 1]! += now - boundary;
          boundary = now;
        }
        if (signal !== undefined && signal.type === 'interrupt_run') return this.interrupt(zone, index, stage.name, signal);
        const stop = signal !== undefined && this.outcome.steered(signal, stage.name);
        if (seam !== undefined && !(await seam.after(zone, index + 1, stage.name, signal))) return;
        if (stop) return;
      }
      index = 0;
    } while (wholeLoop && this.nextIteration());
  }

  /** Starts a stage; returns what it returned as is, so a dispatch costs no async frame of its own. */
  dispatch(stage: Stage, zone: Zone): StageReturn {
    this.ctx.stage = stage.name;
    if (this.ctx.observed) this.emit('stage_started', {});
    const tracer = this.tracer;
    return tracer
      ? tracer.stage({ runId: this.state.runId, name: stage.name, zone, iteration: this.state.iteration }, () => stage.execute(this.state, this.ctx))
      : stage.execute(this.state, this.ctx);
  }

  /** Checks what a stage returned and reports its end. */
  finished(stage: Stage, signal: Signal | void): Signal | void {
    if (signal !== undefined && !isSignal(signal)) {
      throw new TypeError(`stage "${stage.name}" returned something that is not a signal: return nothing, breakLoop() or abortRun()`);
    }
    if (this.ctx.observed) this.emit('stage_finished', signal ? { signal: signal.type, kind: signal.kind, reason: signal.reason } : {});
    return signal;
  }

  boundary(stage: Stage, nextStage: number, signal: Signal | void): void | PromiseLike<void> {
    return this.seam?.finalize(nextStage, stage.name, signal);
  }

  /** The position recorded points at the asking stage itself, so a resume runs it again with the decisions. */
  private async interrupt(zone: Zone, index: number, stage: string, signal: Signal): Promise<void> {
    if (this.seam !== undefined && !(await this.seam.after(zone, index, stage, signal))) return;
    this.pending = signal.pending ?? [];
    this.outcome.end('interrupted', signal.kind, stage, signal.reason);
  }

  private endByAbort(stage: string): void {
    const { status, kind, stage: running, message } = this.abort.describe();
    this.outcome.end(status, kind, running || stage, message);
  }

  /** The stage did not stop within the grace after the abort: the run ends without it. */
  private abandon(stage: string): void {
    this.leftRunning = true;
    const { status, kind, message } = this.abort.describe();
    const note = `stage "${stage}" did not stop within ${this.abort.graceMs} ms of the ${status === 'cancelled' ? 'cancel' : 'deadline'} and was left running`;
    this.warnings.push({ stage, message: note });
    this.outcome.end(status, kind, stage, `${message}; ${note}`);
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.abort.setDeadline(at, reason, kind);
  }

  emit(type: RunEventType, data: object): void {
    const onEvent = this.ctx.deps.onEvent;
    if (onEvent !== undefined) deliver(onEvent, type, { runId: this.state.runId, seq: ++this.eventSeq, zone: this.ctx.zone, stage: this.ctx.stage, iteration: this.state.iteration, at: this.eventClock.now() }, data);
  }
}
