// makeState() / makeCtx(): a complete state and context so a one-stage test is three lines.
import { createRunState, type RunInput, type RunState } from '../../src/engine/state.js';
import type { Deps, RunEvent, StageContext, Zone } from '../../src/engine/stage.js';

export function makeState(overrides: Partial<RunState> & { task?: string } = {}): RunState {
  const { task, ...rest } = overrides;
  const input: RunInput = { task: task ?? 'test task' };
  return Object.assign(createRunState('run-test', 'test', input), rest);
}

export interface TestContext extends StageContext {
  /** Events recorded through ctx.emit. */
  readonly events: RunEvent[];
  /** Deadlines set through ctx.setDeadline. */
  readonly deadlines: Array<{ at: number; reason: string; kind: string }>;
}

/** A fixed clock that tests may advance. */
export function makeClock(start = 1_700_000_000_000): { now(): number; advance(ms: number): void } {
  let current = start;
  return { now: () => current, advance: (ms: number) => void (current += ms) };
}

export function makeIds(prefix = 'id'): { newId(): string } {
  let count = 0;
  return { newId: () => `${prefix}-${++count}` };
}

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
    // A test that gives a signal wants it used; without one nothing can abort the stage.
    signalIfAbortable: options.signal,
    deps,
    zone,
    iteration,
    stage,
    // Tests read ctx.events, so events are always recorded.
    observed: true,
    events,
    deadlines,
    emit(type, data = {}) {
      const event: RunEvent = { runId: 'run-test', type, zone, stage, iteration, at: deps.clock.now(), data };
      events.push(event);
      deps.onEvent?.(event);
    },
    setDeadline(at, reason, kind) {
      deadlines.push({ at, reason, kind });
    },
  };
}
