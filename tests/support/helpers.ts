// makeState() / makeCtx(): a complete state and context so a one-stage test is three lines. Both are stageloop/testing's:
// makeCtx is its stageContext(), the runner's own context parts, so a stage sees here what it sees in a run.
import { makeClock, makeIds, makeState, stageContext, type StageContextOptions, type TestStageContext } from '../../src/testing/index.js';

export { makeClock, makeIds, makeState };

export type TestContext = TestStageContext;

export function makeCtx(options: StageContextOptions = {}): TestContext {
  return stageContext(options);
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
