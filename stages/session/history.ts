// history (setup): reads input.session/user and deps.sessions; writes the history slot (summary, earlier turns, facts, what the session spent) and, with facts, the spotlight slot; returns no signal.
import type { Stage } from '../../src/engine/stage.js';
import { sessionScope, type SessionUsage, type TurnRecord } from '../../src/sessions/types.js';
import { usageOf } from '../../src/sessions/session-store.js';
import type { HistorySlot } from './history-slot.js';
import { skipStage } from '../shared/stage-skipped.js';
import { drawSpotlightBoundary } from '../shared/spotlight.js';

/** How to give a run with a session its store. */
export const sessionsFix = 'pass a SessionStore as deps.sessions (the CLI keeps one under STAGELOOP_HOME)';

export type { HistorySlot } from './history-slot.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    history_loaded: { session: string; turns: number; facts: number; summary: boolean };
    history_unreadable: { problem: string };
  }
}

export function history(): Stage {
  return {
    name: 'history',
    async execute(state, ctx) {
      const name = state.input.session;
      if (name === undefined) return;
      const store = ctx.deps.sessions;
      // Optional: a run without a store is answered without the session's earlier turns, and says so.
      if (store === undefined)
        return skipStage(ctx, 'deps.sessions', "the session's earlier turns and facts are not loaded", sessionsFix);
      const scope = sessionScope(name, state.input.user);
      const loaded = await store.load(scope);
      state.history = { ...scope, summary: loaded.summary, turns: loaded.turns, facts: loaded.facts };
      const spent = spentBefore(loaded.spent, loaded.turns, state.runId);
      // Kept only when something was spent, so a run recorded before sessions kept usage replays to the same state.
      if (spent !== undefined) state.history.spent = spent;
      // The facts are shown between spotlight marks (context, plan): their boundary drawn through the journaled ids, so a replay renders the same prompt.
      if (loaded.facts.length > 0) drawSpotlightBoundary(state, ctx.deps.ids, 16);
      // A row that cannot be read is reported, not fatal: the conversation goes on without it and the row stays.
      for (const problem of loaded.problems) ctx.emit('history_unreadable', { problem });
      ctx.emit('history_loaded', {
        session: scope.session,
        turns: loaded.turns.length,
        facts: loaded.facts.length,
        summary: loaded.summary !== '',
      });
    },
  };
}

/** The session's total without this run's own turn (one a resumed run left before a crash is counted by this turn). */
function spentBefore(
  spent: SessionUsage | undefined,
  turns: readonly TurnRecord[],
  runId: string,
): SessionUsage | undefined {
  const own = turns.find((turn) => turn.runId === runId)?.usage;
  if (spent === undefined || own === undefined) return spent;
  return usageOf(spent.tokens - own.tokens, spent.costUsd - own.costUsd);
}
