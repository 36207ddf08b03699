// A session store for replaying one recorded turn: it shows the session as it was when the run started (its own
// and later turns and facts left out) and writes nothing, so a replay neither sees its own answer nor saves it twice.
import type { Fact, NewTurn, SessionHistory, SessionScope, SessionStore, TurnRecord } from '../src/sessions/types.js';
import { usageOf } from '../src/sessions/session-store.js';

const sum = (turns: readonly TurnRecord[], figure: 'tokens' | 'costUsd') =>
  turns.reduce((total, turn) => total + (turn.usage?.[figure] ?? 0), 0);

export function replaySessions(live: SessionStore, run: { runId: string; createdAt: number }): SessionStore {
  const before = (turn: TurnRecord) => turn.runId !== run.runId && turn.at < run.createdAt;
  const earlierFacts = (facts: Fact[]) =>
    facts.filter((fact) => fact.sourceRun !== run.runId && fact.updated < run.createdAt);
  return {
    name: `${live.name} (as of run ${run.runId})`,
    exists: (scope) => live.exists(scope),
    async load(scope: SessionScope): Promise<SessionHistory> {
      const history = await live.load(scope);
      const { spent, ...rest } = history;
      // What the session had spent then: the total now less what this and later turns spent.
      const later = history.turns.filter((turn) => !before(turn));
      const then = spent && usageOf(spent.tokens - sum(later, 'tokens'), spent.costUsd - sum(later, 'costUsd'));
      return {
        ...rest,
        turns: history.turns.filter(before),
        facts: earlierFacts(history.facts),
        ...(then && { spent: then }),
      };
    },
    async appendTurn(scope: SessionScope, turn: NewTurn): Promise<TurnRecord> {
      const history = await live.load(scope);
      // The seq the run's own turn got when it was saved: a turn of another run may have come in between.
      const saved = history.turns.find((earlier) => earlier.runId === run.runId);
      return {
        ...turn,
        seq:
          saved?.seq ??
          history.turns.filter(before).reduce((highest, earlier) => Math.max(highest, earlier.seq), 0) + 1,
      };
    },
    compact: async () => undefined,
    listFacts: async (scope) => earlierFacts(await live.listFacts(scope)),
    setFact: async () => undefined,
    deleteFact: async () => false,
    close: () => undefined,
  };
}
