// stageContext(): the context the runner gives a stage, built from the runner's own parts (RunContext, RunAbort,
// the event delivery), for tests that call `stage.execute(state, ctx)` directly and read what the stage emitted and set.
import { LazyAbort } from '../common/lazy-abort.js';
import { RunAbort } from '../engine/run-abort.js';
import { RunContext, type ContextHost } from '../engine/run-context.js';
import type { Deps, RunEvent, StageContext, Zone } from '../engine/stage.js';
import { makeClock, makeIds } from './state.js';

export interface StageContextOptions {
  /** A fixed clock (makeClock) and counting ids (makeIds) unless given; `onEvent` still sees every event. */
  deps?: Partial<Deps>;
  /** Default 'iteration'. */
  zone?: Zone;
  /** Default 1. */
  iteration?: number;
  /** The stage name events carry. Default 'test-stage'. */
  stage?: string;
  /** The caller's signal, as for runPipeline: aborting it aborts ctx.signal. */
  signal?: AbortSignal;
}

export interface TestStageContext extends StageContext {
  /** Every event the stage emitted, in order (the context always records them: data given as a function is built). */
  readonly events: RunEvent[];
  /** Every ctx.setDeadline call; a deadline that passes aborts ctx.signal, as in a run. */
  readonly deadlines: Array<{ at: number; reason: string; kind: string }>;
  /** Aborts ctx.signal, as a cancelled run does. */
  cancel(reason?: unknown): void;
  /** Clears the deadline timer and the signal listener, as the runner does when a run ends. */
  dispose(): void;
}

export function stageContext(options: StageContextOptions = {}): TestStageContext {
  const given = options.deps ?? {};
  const events: RunEvent[] = [];
  const deadlines: Array<{ at: number; reason: string; kind: string }> = [];
  const onEvent = (event: RunEvent) => {
    events.push(event);
    given.onEvent?.(event);
  };
  const deps: Deps = { clock: makeClock(), ids: makeIds(), ...given, onEvent };
  const zone = options.zone ?? 'iteration';
  let context: RunContext | undefined;
  const abort = new RunAbort(options.signal, deps.clock, deps.clock, () => context?.stage ?? '', 1_000);
  // In finalize the runner gives a signal of its own (the zone's time limit), not the run's.
  const finalizeSignal = zone === 'finalize' ? new LazyAbort() : undefined;
  const host: ContextHost = {
    runSignal: abort.controller,
    finalizeSignal,
    get abortable() {
      return abort.abortable;
    },
    setDeadline(at, reason, kind) {
      deadlines.push({ at, reason, kind });
      abort.setDeadline(at, reason, kind);
    },
  };
  context = new RunContext(host, deps, 'run-test', deps.clock);
  context.zone = zone;
  context.iteration = options.iteration ?? 1;
  context.stage = options.stage ?? 'test-stage';
  const cancel = (reason?: unknown) => (zone === 'finalize' ? finalizeSignal!.abort(reason) : abort.fire(reason));
  return Object.assign(context, { events, deadlines, cancel, dispose: () => abort.dispose() });
}
