// makeState(), makeClock(), makeIds(): a complete RunState and deterministic clock and ids for tests.
import type { Clock, IdGenerator } from '../engine/stage.js';
import { createRunState, type RunState } from '../engine/state.js';

/** A fresh RunState (task "test task", run "run-test") with any fields replaced by `overrides`. */
export function makeState(overrides: Partial<RunState> & { task?: string } = {}): RunState {
  const { task, ...rest } = overrides;
  return Object.assign(createRunState('run-test', 'test', { task: task ?? 'test task' }), rest);
}

/** A fixed clock that a test moves forward itself. */
export function makeClock(start = 1_700_000_000_000): Clock & { advance(ms: number): void } {
  let current = start;
  return { now: () => current, advance: (ms: number) => void (current += ms) };
}

/** Ids `${prefix}-1`, `${prefix}-2`, ... */
export function makeIds(prefix = 'id'): IdGenerator {
  let count = 0;
  return { newId: () => `${prefix}-${++count}` };
}
