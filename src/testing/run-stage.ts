// runStage(): one stage run by the real runner, with the real stage context, against a state the test built.
import { definePipeline, type Pipeline } from '../engine/pipeline.js';
import { runPipeline, type RunResult } from '../engine/runner.js';
import { breakLoop, type Signal } from '../engine/signal.js';
import type { Deps, RunEvent, Stage, StageContext, Zone } from '../engine/stage.js';
import type { RunState } from '../engine/state.js';
import { makeClock, makeIds } from './state.js';

export interface RunStageOptions {
  /** The stage's dependencies; a fixed clock (makeClock) and counting ids (makeIds) unless given. */
  deps?: Partial<Deps>;
  /** The zone to run the stage in. Default 'iteration'. */
  zone?: Zone;
  /** The iteration the stage sees in the iteration zone. Default: the state's iteration, or 1 for a fresh state. */
  iteration?: number;
  /** The caller's signal, as for runPipeline: aborting it cancels the stage. */
  signal?: AbortSignal;
  /** The finalize zone's time limit, as for runPipeline. */
  finalizeTimeoutMs?: number;
}

export interface StageRun {
  /** What the stage returned: a signal, or undefined for "continue". */
  signal: Signal | undefined;
  /** The events the stage emitted through ctx.emit, in order. */
  events: RunEvent[];
  /** The zone, iteration and stage name the stage saw in its context; undefined if it never ran (signal already aborted). */
  context: Pick<StageContext, 'zone' | 'iteration' | 'stage'> | undefined;
  /** The one-stage run: a deadline that passed, a cancel or a throw shows in status, stopReason and error. */
  result: RunResult;
}

const seedName = 'stageloop-testing-seed';
const endName = 'stageloop-testing-end';
const ended = () => breakLoop('stageloop/testing: the stage under test ran');

/**
 * Runs `stage` once through runPipeline, so it gets the context a real run gives (signal, deadlines, events, the
 * finalize time limit), while reading and writing `state` itself: assert on `state` afterwards.
 */
export async function runStage(stage: Stage, state: RunState, options: RunStageOptions = {}): Promise<StageRun> {
  const zone = options.zone ?? 'iteration';
  const iteration =
    zone === 'setup' ? 0 : zone === 'iteration' ? (options.iteration ?? Math.max(state.iteration, 1)) : state.iteration;
  const events: RunEvent[] = [];
  let recording = false;
  let returned: Signal | undefined;
  let seen: StageRun['context'] | undefined;
  const given = options.deps ?? {};
  const onEvent = given.onEvent;
  const deps: Partial<Deps> = {
    clock: makeClock(),
    ids: makeIds('run'),
    ...given,
    onEvent: (event) => {
      if (recording) events.push(event);
      onEvent?.(event);
    },
  };
  const probe: Stage = {
    name: stage.name,
    async execute(_runState, ctx) {
      seen = { zone: ctx.zone, iteration: ctx.iteration, stage: ctx.stage };
      if (zone !== 'setup') state.iteration = ctx.iteration; // the runner counts iterations on the state it runs
      recording = true;
      try {
        returned = (await stage.execute(state, ctx)) ?? undefined;
      } finally {
        recording = false;
      }
      // "Continue" would run the loop again: end it, so exactly one stage call happens.
      return returned ?? (zone === 'finalize' ? undefined : ended());
    },
  };
  // Puts the runner's own state at the iteration before the one the stage should see; in setup it skips the loop.
  const seed: Stage = {
    name: seedName,
    execute(runState) {
      runState.iteration = zone === 'iteration' ? iteration - 1 : iteration;
      return zone === 'finalize' ? ended() : undefined;
    },
  };
  const end: Stage = { name: endName, execute: ended };
  const result = await runPipeline(
    onePipeline(zone, probe, seed, end, Math.max(iteration, 1)),
    { task: state.input.task },
    runOptions(deps, options),
  );
  return { signal: returned, events, context: seen, result };
}

function onePipeline(zone: Zone, probe: Stage, seed: Stage, end: Stage, maxIterations: number): Pipeline {
  const name = 'stageloop-testing';
  if (zone === 'setup') return definePipeline({ name, setup: [probe], iteration: [end], maxIterations });
  if (zone === 'iteration') return definePipeline({ name, setup: [seed], iteration: [probe], maxIterations });
  return definePipeline({ name, setup: [seed], iteration: [end], finalize: [probe], maxIterations });
}

function runOptions(deps: Partial<Deps>, options: RunStageOptions): Parameters<typeof runPipeline>[2] {
  const run: NonNullable<Parameters<typeof runPipeline>[2]> = { deps };
  if (options.signal !== undefined) run.signal = options.signal;
  if (options.finalizeTimeoutMs !== undefined) run.finalizeTimeoutMs = options.finalizeTimeoutMs;
  return run;
}
