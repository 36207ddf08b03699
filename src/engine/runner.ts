// The runner: runs the three zones of a pipeline over one RunState through the one stage loop (stage-loop.ts).
// Everything else is a stage or a helper beside this file (abort, finalize, outcome, result, tracer, the seam).
import type { LazyAbort } from '../common/lazy-abort.js';
import type { Pipeline } from './pipeline.js';
import type { Signal } from './signal.js';
import type { Deps, RunTraceInfo, RunTracer, Stage } from './stage.js';
import { createRunState, freezeInput, type RunInput, type RunState, type RunStatus, type StopReason } from './state.js';
import { randomIds, systemClock } from './defaults.js';
import { RunAbort } from './run-abort.js';
import { RunContext, type ContextHost } from './run-context.js';
import { checkArguments, type CheckedOptions, type RunOptions } from './run-options.js';
import { OutcomeTracker } from './run-outcome.js';
import { buildResult, finishedData, type RunError, type RunResult, type RunWarning } from './run-result.js';
import { SeamCaller, liveCursor, type RunPosition } from './run-seam.js';
import { identityTracer, runTracer } from './run-tracer.js';
import { FinalizeZone, type FinalizeHost } from './finalize-zone.js';
import { StageCall, runStages, type StageLoopHost } from './stage-loop.js';
import { LoopZones } from './loop-zones.js';
import { newTimings, preparedPipeline, type PreparedPipeline } from './stage-timings.js';
import { toolsForRun } from './tool-run.js';
import { assembledDeps } from './stage-needs.js';

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
    // Untraced: no trace info and no closure for the tracer's wrapper.
    if (run.tracer === identityTracer) return run.execute();
    const seam = options.seam;
    const info: RunTraceInfo =
      seam === undefined
        ? { runId: state.runId, pipeline: pipeline.name }
        : {
            runId: state.runId,
            pipeline: pipeline.name,
            linkTo: seam.firstTrace,
            onRootSpan: seam.rootSpanStarted?.bind(seam),
          };
    return run.tracer.run(info, () => run.execute());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One run's private bookkeeping (the pipeline and its stages hold none), and the rules of setup and iteration. */
class Run implements ContextHost, FinalizeHost, StageLoopHost {
  readonly abort: RunAbort;
  finalizeZone: FinalizeZone | undefined;
  readonly tracer: RunTracer;
  readonly timings: number[];
  readonly warnings: RunWarning[] = [];
  readonly ctx: RunContext;
  readonly call: StageCall;
  readonly prepared: PreparedPipeline;
  readonly plain: boolean;
  private readonly outcome = new OutcomeTracker();
  private readonly seam: SeamCaller | undefined;
  private readonly start: RunPosition | undefined;
  private readonly loop: LoopZones;

  constructor(
    readonly pipeline: Pipeline,
    readonly state: RunState,
    deps: Deps,
    options: RunOptions,
    private readonly checked: CheckedOptions,
  ) {
    this.prepared = preparedPipeline(pipeline);
    this.timings = newTimings(this.prepared);
    this.start = options.start?.position;
    if (this.start)
      Object.assign(this.outcome, {
        steer: this.start.steer,
        breakRequested: this.start.breakRequested,
        ended: this.start.ended,
      });
    if (options.seam) this.seam = new SeamCaller(options.seam, state, this.outcome, this.warnings);
    // Every call of the run passes its tool gate, inside the journal (a replay serves what the gate decided).
    const canAsk = (deps as { approve?: unknown }).approve !== undefined || options.seam !== undefined;
    const tools = toolsForRun(deps.tools, { state, canAsk });
    // runPipeline made `deps` for this run alone: the run's view replaces the box in place (no second copy).
    if (tools !== deps.tools) deps.tools = tools;
    const wrapped = assembledDeps(
      pipeline,
      options.seam?.wrapDeps?.(
        deps,
        liveCursor(() => this.ctx),
      ) ?? deps,
    );
    // Event times use the real clock; deadlines are set from the clock stages read (so a replay sees the same).
    this.ctx = new RunContext(this, wrapped, state.runId, deps.clock);
    // A run started from a checkpoint is already in its iteration (finalize starts no zone pass that would set it).
    this.ctx.iteration = state.iteration;
    this.abort = new RunAbort(options.signal, wrapped.clock, deps.clock, () => this.ctx.stage, checked.abandonAfterMs);
    this.tracer = runTracer(wrapped.tracer) ?? identityTracer;
    this.call = new StageCall(this);
    // The plain variant: an untraced, unobserved run calls its stages straight (decided once, at the start).
    this.plain = this.tracer === identityTracer && !this.ctx.listening;
    // Untraced, the loop zones start each next pass themselves (traced, each pass is wrapped on its own).
    const passes = this.tracer === identityTracer ? this : undefined;
    this.loop = new LoopZones(this.abort, this.outcome, this.seam, state, this.ctx, this.warnings, passes);
  }

  get runSignal(): LazyAbort {
    return this.abort.controller;
  }

  get finalizeSignal(): LazyAbort | undefined {
    return this.finalizeZone?.abort;
  }

  get abortable(): boolean {
    return this.abort.abortable;
  }

  async execute(): Promise<RunResult> {
    if (this.ctx.listening)
      this.ctx.report('run_started', { pipeline: this.pipeline.name, task: this.state.input.task });
    const start = this.start;
    const inFinalize = start?.zone === 'finalize';
    try {
      if (start === undefined || start.zone === 'setup')
        await runStages(this, 'setup', this.loop, start?.nextStage ?? 0);
      // From here on what the run was asked is fixed (setup may still redact the task).
      freezeInput(this.state);
      if (start?.zone === 'iteration') await runStages(this, 'iteration', this.loop, start.nextStage);
      // A run resumed in finalize was past its loop when the checkpoint was taken. Untraced, the first pass runs them all.
      if (!inFinalize)
        while (this.nextIteration())
          await this.tracer.iteration(this.call, () => runStages(this, 'iteration', this.loop, 0));
    } finally {
      this.abort.dispose();
    }
    // A paused run is not over: finalize waits for the resume.
    const { pending, error } = this.loop;
    const leftRunning =
      (pending === undefined && (await this.finalize(inFinalize, inFinalize ? start.nextStage : 0))) ||
      this.loop.leftRunning;
    // A stage left running keeps the live state; the result keeps what was true when the run ended.
    const state = leftRunning ? structuredClone(this.state) : this.state;
    const result = buildResult({
      pipeline: this.pipeline,
      prepared: this.prepared,
      state,
      outcome: this.outcome.outcome(),
      timings: this.timings,
      warnings: this.warnings,
      error,
      pending,
    });
    // No seam, no await (an await of undefined still costs a turn of the microtask queue).
    if (this.seam !== undefined) await this.seam.finished(result);
    if (this.ctx.listening) this.ctx.report('run_finished', finishedData(result));
    return result;
  }

  /** Resolves true when a finalize stage was left running past the limit (it may still write). */
  private async finalize(inFinalize: boolean, from: number): Promise<boolean> {
    // Finalize stages (a summary, say) learn how the run ended from the state, like everything else.
    if (!inFinalize) this.state.stop = this.outcome.outcome();
    this.ctx.zone = 'finalize';
    if (!inFinalize && this.seam !== undefined) await this.seam.finalize(0, null, undefined);
    const zone = (this.finalizeZone = new FinalizeZone(this, this.checked.finalizeTimeoutMs));
    try {
      await runStages(this, 'finalize', zone, from);
    } finally {
      zone.close();
    }
    return zone.leftRunning;
  }

  /** Starts the next iteration, or says the loop is over (a stage ended it, or the cap is reached). */
  nextIteration(): boolean {
    if (this.outcome.ended !== null || this.outcome.breakRequested) return false;
    if (this.state.iteration >= this.pipeline.maxIterations) {
      this.outcome.end(
        'stopped',
        'max_iterations',
        null,
        `reached the iteration cap of ${this.pipeline.maxIterations}`,
      );
      return false;
    }
    this.ctx.iteration = this.call.iteration = ++this.state.iteration;
    return true;
  }

  boundary(stage: Stage, nextStage: number, signal: Signal | void): void | PromiseLike<void> {
    return this.seam?.finalize(nextStage, stage.name, signal);
  }

  setDeadline(at: number, reason: string, kind: string): void {
    this.abort.setDeadline(at, reason, kind);
  }
}
