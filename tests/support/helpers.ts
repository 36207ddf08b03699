// makeState() / makeCtx(): a complete state and context so a one-stage test is three lines. Both are stageloop/testing's:
// makeCtx is its stageContext(), the runner's own context parts, so a stage sees here what it sees in a run.
import {
  makeClock,
  makeIds,
  makeState,
  stageContext,
  type StageContextOptions,
  type TestStageContext,
} from '../../src/testing/index.js';

export { makeClock, makeIds, makeState };

export type TestContext = TestStageContext;

export function makeCtx(options: StageContextOptions = {}): TestContext {
  return stageContext(options);
}

/**
 * The context as a run where nobody listens gives it (no deps.onEvent); `built` names every event whose data the stage
 * built anyway, that is, gave as data rather than as a function the run would not call.
 */
export function unobservedCtx(options: StageContextOptions = {}): TestContext & { built: string[] } {
  const ctx = stageContext(options);
  const built: string[] = [];
  const emit = (type: string, data?: unknown): void => void (typeof data === 'function' || built.push(type));
  return { ...ctx, deps: { ...ctx.deps, onEvent: undefined }, emit, built };
}

/** Resolves once `condition()` holds, looking every few ms; fails naming `what` after `timeoutMs` (a bound, not a pause). */
export async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The bound for "at once" in a test: far above what a loaded machine adds (a busy 2-core CI runner delays a timer or
 * a process by a second or more), far below the wait the behaviour under test cuts short (a minute, or forever).
 */
export const PROMPTLY_MS = 5_000;
