// makeState() / makeCtx(): a complete state and context so a one-stage test is three lines. makeState, makeClock and
// makeIds are stageloop/testing's own; prefer its runStage(), which runs a stage with the real runner's context.
import { makeClock, makeIds, makeState } from '../../src/testing/index.js';
import type { Deps, RunEvent, StageContext, Zone } from '../../src/engine/stage.js';

export { makeClock, makeIds, makeState };

export interface TestContext extends StageContext {
  /** Events recorded through ctx.emit. */
  readonly events: RunEvent[];
  /** Deadlines set through ctx.setDeadline. */
  readonly deadlines: Array<{ at: number; reason: string; kind: string }>;
}

/**
 * A hand-built context for calling `stage.execute(state, ctx)` directly, kept for tests that read `ctx.deadlines`.
 * It follows the real context's rules: finalize always has a signal (its time limit), other zones only when given one.
 */
export function makeCtx(
  options: { deps?: Partial<Deps>; zone?: Zone; iteration?: number; stage?: string; signal?: AbortSignal } = {},
): TestContext {
  const deps: Deps = { clock: makeClock(), ids: makeIds(), ...options.deps };
  const events: RunEvent[] = [];
  const deadlines: Array<{ at: number; reason: string; kind: string }> = [];
  const zone = options.zone ?? 'iteration';
  const iteration = options.iteration ?? 1;
  const stage = options.stage ?? 'test-stage';
  const signal = options.signal ?? new AbortController().signal;
  return {
    signal,
    signalIfAbortable: zone === 'finalize' ? signal : options.signal,
    deps,
    zone,
    iteration,
    stage,
    // Tests read ctx.events, so events are always recorded.
    observed: true,
    events,
    deadlines,
    emit(type, ...data) {
      const event = { runId: 'run-test', seq: events.length + 1, type, zone, stage, iteration, at: deps.clock.now(), data: data[0] ?? {} } as RunEvent;
      events.push(event);
      deps.onEvent?.(event);
    },
    setDeadline(at, reason, kind) {
      deadlines.push({ at, reason, kind });
    },
  };
}
