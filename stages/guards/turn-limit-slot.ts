// The limit that forced a tool-less turn (a leaf: budget writes it into nextTurn, think reads and clears it).
import type {} from '../../src/engine/state.js';

/** Why the next reasoning call has no tools: a final answer in it ends the run as stopped with this kind. */
export interface TurnLimit {
  /** The stop kind the answer is reported under (budget_tokens, budget_iterations...). */
  kind: string;
  reason: string;
}

declare module '../../src/engine/state.js' {
  interface TurnDirectives {
    /** Set with withoutTools by a guard whose limit is spent; think clears it when it makes the call. */
    limit?: TurnLimit;
  }
}
