// The latest model failure of a run (a leaf: think, plan and replan record it, summarize reads it).
import type { RunState } from '../../src/engine/state.js';
import { ModelError } from '../../src/model/types.js';

/** What failed: the ModelError kind, the iteration (0 in setup) and the stage that asked. */
export interface ModelFailureSlot {
  kind: string;
  iteration: number;
  stage: string;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    modelFailure: ModelFailureSlot;
  }
}

/** Records a ModelError (anything else is not the model's failure) and hands the error back, to rethrow. */
export function recordModelFailure(state: RunState, stage: string, error: unknown): unknown {
  if (error instanceof ModelError) state.modelFailure = { kind: error.kind, iteration: state.iteration, stage };
  return error;
}
