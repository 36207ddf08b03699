// The stage loop, written once for every zone: dispatch, the check of what a stage returned, and its timings. What
// a zone makes of an abort, a wait, a failure and a boundary is its ZoneRules (the runner's, finalize-zone.ts).
import { performance } from 'node:perf_hooks';
import { isPromiseLike } from '../common/promise-like.js';
import type { RunContext } from './run-context.js';
import { isSignal, type Signal } from './signal.js';
import type { PreparedPipeline } from './stage-timings.js';
import type { RunTracer, Stage, StageInfo, StageReturn, Zone } from './stage.js';
import type { RunState } from './state.js';

/** What a waiting stage settles as when the zone stops waiting for it (it may still be running). */
export const leftBehind = Symbol('left-behind');

/** How a zone treats its stages. Every hook but `wait` answers "go on with the zone?". */
export interface ZoneRules {
  /** True once the zone's abort has fired: a stage not yet run is skipped, and `abortedBefore` says if the zone goes on. */
  readonly aborted: boolean;
  abortedBefore(stage: Stage): boolean;
  /** How a stage's promise is awaited: as is, or raced against a grace or a time limit (then `leftBehind`). */
  wait(returned: PromiseLike<Signal | void>): PromiseLike<Signal | void | typeof leftBehind>;
  leftBehind(stage: Stage): boolean;
  failed(stage: Stage, error: unknown): boolean;
  /** After a stage that ran, failed or was left behind (`signal` undefined then); `index` is the stage's own. */
  after(stage: Stage, index: number, signal: Signal | void): boolean | PromiseLike<boolean>;
  /** After the zone's last stage: true to run its stages again (the next iteration) in this same call. */
  again(zone: Zone): boolean;
}

/** The part of a run the loop reads. */
export interface StageLoopHost {
  readonly prepared: PreparedPipeline;
  readonly state: RunState;
  readonly ctx: RunContext;
  readonly tracer: RunTracer;
  readonly timings: number[];
  readonly call: StageCall;
  /** Nobody traces or listens: a stage is called straight, with no dispatcher and no events. */
  readonly plain: boolean;
}

/** Runs a zone's stages from `from`, and again from the first while the rules say so. */
export async function runStages(host: StageLoopHost, zone: Zone, rules: ZoneRules, from: number): Promise<void> {
  const { state, ctx, timings, call, plain } = host;
  const { stages, first } = host.prepared[zone];
  ctx.zone = call.zone = zone;
  ctx.iteration = call.iteration = state.iteration;
  // One clock read per stage boundary: a stage's time runs from the previous boundary to its end.
  const boundary = host.prepared.boundarySlot;
  timings[boundary] = performance.now();
  do {
    for (let index = from; index < stages.length; index++) {
      const stage = stages[index]!;
      if (rules.aborted) {
        if (rules.abortedBefore(stage)) continue;
        return;
      }
      let signal: Signal | void = undefined;
      try {
        let returned: StageReturn;
        if (plain) {
          ctx.stage = stage.name;
          returned = stage.execute(state, ctx);
        } else returned = call.dispatch(stage);
        const settled = isPromiseLike(returned) ? await rules.wait(returned) : returned;
        if (settled !== leftBehind) signal = checked(ctx, stage, settled);
        else if (!rules.leftBehind(stage)) return;
      } catch (thrown) {
        if (!rules.failed(stage, thrown)) return;
      } finally {
        const now = performance.now();
        timings[first + 2 * index]! += 1;
        timings[first + 2 * index + 1]! += now - timings[boundary]!;
        timings[boundary] = now;
      }
      const goOn = rules.after(stage, index, signal);
      if (goOn === false || (goOn !== true && !(await goOn))) return;
    }
    from = 0;
  } while (rules.again(zone));
}

/**
 * A run's dispatcher. The tracer gets this object as the stage's info and `body` as the stage's call, so a dispatch
 * allocates nothing; the run's guard hands a real tracer a copy of the info.
 */
export class StageCall implements StageInfo {
  readonly runId: string;
  name = '';
  zone: Zone = 'setup';
  iteration = 0;
  private stage: Stage | undefined;
  /** The body handed to the tracer: made on the first dispatch (a plain run never dispatches). */
  private body: (() => StageReturn) | undefined;
  // Read only by a real tracer (through the run's guard), so a dispatch writes nothing more.
  get quiet(): boolean {
    return this.stage?.quiet === true;
  }

  constructor(private readonly host: StageLoopHost) {
    this.runId = host.state.runId;
  }

  /** Starts a stage; returns what it returned as is, so a dispatch costs no async frame of its own. */
  dispatch(stage: Stage): StageReturn {
    const ctx = this.host.ctx;
    ctx.stage = this.name = stage.name;
    this.stage = stage;
    if (ctx.listening) ctx.report('stage_started', {});
    return this.host.tracer.stage(this, (this.body ??= () => this.stage!.execute(this.host.state, this.host.ctx)));
  }
}

/** Checks what a stage returned and reports its end. */
function checked(ctx: RunContext, stage: Stage, signal: Signal | void): Signal | void {
  if (signal !== undefined && !isSignal(signal)) {
    throw new TypeError(
      `stage "${stage.name}" returned something that is not a signal: return nothing, breakLoop() or abortRun()`,
    );
  }
  if (ctx.listening)
    ctx.report('stage_finished', signal ? { signal: signal.type, kind: signal.kind, reason: signal.reason } : {});
  return signal;
}
