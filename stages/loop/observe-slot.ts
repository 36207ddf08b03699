// The observe slot's type (a leaf: replan and memory read the latest tool results).
import type {} from '../../src/engine/state.js';

/** One tool result as working memory keeps it. */
export interface ObservedResult {
  tool: string;
  arguments: string;
  ok: boolean;
  content: string;
}

/** The latest tool results of the current plan step (of the run when there is no plan), newest last. */
export interface ObserveSlot {
  step: number | null;
  results: ObservedResult[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    observe: ObserveSlot;
  }
}
