// The history slot's type (a leaf: context, memory, prompts, the plan's knowledge and the injection doors read it).
import type { Fact, SessionUsage, TurnRecord } from '../../src/sessions/types.js';

/** Working memory of the session for this run; context renders it, memory appends to it. */
export interface HistorySlot {
  user: string;
  session: string;
  summary: string;
  turns: TurnRecord[];
  facts: Fact[];
  /** What the session's earlier turns spent in all (this run's own turn left out); absent when nothing. */
  spent?: SessionUsage;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    history: HistorySlot;
  }
}
