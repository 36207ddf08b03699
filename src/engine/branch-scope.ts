// Which plan step the code running now works for: stages that run steps side by side set it, so events carry the
// step id and the durable journal keeps each step's calls apart. Async context, so it follows every await.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface BranchScope {
  /** The step's id. */
  step: string;
  /** True when steps run side by side (their calls may interleave); false for one step at a time. */
  parallel: boolean;
}

const scope = new AsyncLocalStorage<BranchScope>();

export function inBranch<Result>(branch: BranchScope, body: () => Result): Result {
  return scope.run(branch, body);
}

export function currentBranch(): BranchScope | undefined {
  return scope.getStore();
}

/** Runs `body` as no step's: a run started from a step (an agent's) has steps of its own, if any. */
export function outsideBranch<Result>(body: () => Result): Result {
  return scope.exit(body);
}
