// memorySessions(): the SessionStore in this process's memory, for tests and runs that need nothing to survive.
import { createSessionStore, type FactRow, type SessionTables, type TurnRow } from './session-store.js';
import type { SessionScope, SessionStore, SessionUsage } from './types.js';

interface MemorySession {
  summary: string;
  folded: SessionUsage;
  turns: TurnRow[];
  facts: Map<string, FactRow>;
}

export function memorySessions(options: { clock?: { now(): number } } = {}): SessionStore {
  const sessions = new Map<string, MemorySession>();
  // JSON keys: no separator a name could contain can make two scopes collide.
  const keyOf = (scope: SessionScope) => JSON.stringify([scope.user, scope.session]);
  const find = (scope: SessionScope) => sessions.get(keyOf(scope));
  const tables: SessionTables = {
    name: 'the memory session store',
    write: (body) => body(),
    read: (body) => body(),
    summary: (scope) => find(scope)?.summary,
    folded: (scope) => ({ ...(find(scope)?.folded ?? { tokens: 0, costUsd: 0 }) }),
    ensureSession(scope) {
      if (!sessions.has(keyOf(scope)))
        sessions.set(keyOf(scope), { summary: '', folded: { tokens: 0, costUsd: 0 }, turns: [], facts: new Map() });
    },
    setSummary(scope, summary, _at, folded) {
      const session = find(scope)!;
      session.summary = summary;
      session.folded = { ...folded };
    },
    turns: (scope) => (find(scope)?.turns ?? []).map((row) => ({ ...row })),
    insertTurn(scope, row) {
      const session = find(scope)!;
      session.turns.push({
        seq: row.seq,
        runId: row.runId,
        task: row.task,
        answer: row.answer,
        tools: row.toolsText,
        at: row.at,
        status: row.status ?? 'completed',
        tokens: row.usage?.tokens ?? 0,
        costUsd: row.usage?.costUsd ?? 0,
      });
      // In seq order, as the SQL stores read them (a resumed turn goes back in its place).
      session.turns.sort((a, b) => a.seq - b.seq);
    },
    deleteTurn(scope, seq) {
      const session = find(scope)!;
      session.turns = session.turns.filter((row) => row.seq !== seq);
    },
    facts: (scope) => [...(find(scope)?.facts.values() ?? [])].map((row) => ({ ...row })),
    putFact(scope, fact) {
      find(scope)!.facts.set(fact.key, { ...fact });
    },
    removeFact: (scope, key) => (find(scope)?.facts.delete(key) ? 1 : 0),
    close: () => sessions.clear(),
  };
  return createSessionStore(tables, options.clock);
}
