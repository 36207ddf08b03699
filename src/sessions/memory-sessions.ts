// memorySessions(): the SessionStore in this process's memory, for tests and runs that need nothing to survive.
import { createSessionStore, type FactRow, type SessionTables, type TurnRow } from './session-store.js';
import type { SessionScope, SessionStore } from './types.js';

interface MemorySession {
  summary: string;
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
    ensureSession(scope) {
      if (!sessions.has(keyOf(scope))) sessions.set(keyOf(scope), { summary: '', turns: [], facts: new Map() });
    },
    setSummary(scope, summary) {
      find(scope)!.summary = summary;
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
