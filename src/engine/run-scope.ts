// The run scope: the one async context of stageloop. It carries what the code running now works for and cannot be
// handed down as an argument, because it must reach code the scope's owner does not call (a model or tool adapter,
// the journal seam's wrappers, a tool's own run): the plan step (events carry its id, the journal keeps each step's
// calls apart) and, through declaration merging, the calling run of a tool batch (src/tools/call-scope.ts). Async
// context, so it follows every await; one instance, so a run pays for one at most.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface BranchScope {
  /** The step's id. */
  step: string;
  /** True when steps run side by side (their calls may interleave); false for one step at a time. */
  parallel: boolean;
}

/** What the run scope carries. Other layers add a field of their own: `declare module` RunScope, like RunEvents. */
export interface RunScope {
  /** The plan step the code works for: stages that run steps set it around each step's stage. */
  branch?: BranchScope;
}

const scope = new AsyncLocalStorage<RunScope>();

/** Runs `body` in the current scope with `change` on top (the other fields kept). */
export function withinScope<Result>(change: RunScope, body: () => Result): Result {
  const current = scope.getStore();
  return scope.run(current === undefined ? change : { ...current, ...change }, body);
}

export function currentScope(): RunScope | undefined {
  return scope.getStore();
}

export function inBranch<Result>(branch: BranchScope, body: () => Result): Result {
  return withinScope({ branch }, body);
}

export function currentBranch(): BranchScope | undefined {
  return scope.getStore()?.branch;
}

/** Runs `body` as no step's: a run started from a step (an agent's) has steps of its own, if any. */
export function outsideBranch<Result>(body: () => Result): Result {
  return currentBranch() === undefined ? body() : withinScope({ branch: undefined }, body);
}
