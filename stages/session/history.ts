// history (setup): reads input.session/user and deps.sessions; writes the history slot (summary, earlier turns, facts); returns no signal.
import type { Stage } from '../../src/engine/stage.js';
import type { Fact, TurnRecord } from '../../src/sessions/types.js';
import { sessionScope } from '../../src/sessions/types.js';
import type { HistorySlot } from './history-slot.js';
import { skipStage } from '../shared/stage-skipped.js';

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
