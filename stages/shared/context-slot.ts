// The context slot's type (a leaf: context and prompts import it).
import type {} from '../../src/engine/state.js';

/** Working memory for the run: what the system prompt was rendered from. */
export interface ContextSlot {
  systemPrompt: string;
  tools: string[];
  /** Durable facts given with the stage options or the run input (`input.options.facts`). */
  facts: string[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    context: ContextSlot;
  }
}
