// sqliteSessions(path): the SessionStore in the same SQLite file as the runs (its tables are in the store's schema),
// shared safely by processes on this host; every write is one IMMEDIATE transaction.
import { resolve } from 'node:path';
import { openDatabase } from '../store/sqlite-schema.js';
import { storeFailure } from '../store/sqlite-errors.js';
import { createSessionStore, type FactRow, type SessionTables, type TurnRow } from './session-store.js';
import type { SessionStore } from './types.js';

export interface SqliteSessionsOptions {
  /** How long a write waits for another process's transaction, in ms (default 5000). */
  busyTimeoutMs?: number;
  clock?: { now(): number };
}

const scoped = 'user_id = ? AND session = ?';

export function sqliteSessions(path: string, options: SqliteSessionsOptions = {}): SessionStore {
  const file = resolve(path);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  const database = openDatabase(file, { durability: 'process', busyTimeoutMs });
  const failure = (error: unknown) => storeFailure(file, error, busyTimeoutMs);
  let statements;
  try {
    statements = {
      summary: database.prepare<[string, string], string>(`SELECT summary FROM sessions WHERE ${scoped}`).pluck(),
      ensure: database.prepare<[string, string, number, number]>(
        "INSERT INTO sessions (user_id, session, summary, created_at, updated_at) VALUES (?, ?, '', ?, ?) ON CONFLICT DO NOTHING",
      ),
      folded: database.prepare<[string, string], { tokens: number; costUsd: number }>(
        `SELECT folded_tokens AS tokens, folded_cost_usd AS costUsd FROM sessions WHERE ${scoped}`,
      ),
      setSummary: database.prepare<[string, number, number, number, string, string]>(
        `UPDATE sessions SET summary = ?, updated_at = ?, folded_tokens = ?, folded_cost_usd = ? WHERE ${scoped}`,
      ),
      turns: database.prepare<[string, string], TurnRow>(
        `SELECT seq, run_id AS runId, task, answer, tools, at, status, tokens, cost_usd AS costUsd FROM session_turns WHERE ${scoped} ORDER BY seq`,
      ),
      insertTurn: database.prepare<
        [string, string, number, string, string, string, string, number, string, number, number]
      >(
        'INSERT INTO session_turns (user_id, session, seq, run_id, task, answer, tools, at, status, tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      deleteTurn: database.prepare<[string, string, number]>(`DELETE FROM session_turns WHERE ${scoped} AND seq = ?`),
      facts: database.prepare<[string, string], FactRow>(
        `SELECT key, value, source_run AS sourceRun, updated_at AS updated FROM session_facts WHERE ${scoped} ORDER BY key`,
      ),
      putFact: database.prepare<[string, string, string, string, string, number]>(
        `INSERT INTO session_facts (user_id, session, key, value, source_run, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, session, key) DO UPDATE SET value = excluded.value, source_run = excluded.source_run, updated_at = excluded.updated_at`,
      ),
      removeFact: database.prepare<[string, string, string]>(`DELETE FROM session_facts WHERE ${scoped} AND key = ?`),
    };
  } catch (error) {
    database.close();
    throw failure(error);
  }
  const prepared = statements;
  const guarded = <Result>(body: () => Result): Result => {
    try {
      return body();
    } catch (error) {
      throw failure(error);
    }
  };
  const tables: SessionTables = {
    name: `store ${file}`,
    write: (body) => guarded(() => database.immediate(body)),
    read: (body) => guarded(body),
    summary: (scope) => prepared.summary.get(scope.user, scope.session),
    ensureSession: (scope, at) => void prepared.ensure.run(scope.user, scope.session, at, at),
    folded: (scope) => prepared.folded.get(scope.user, scope.session) ?? { tokens: 0, costUsd: 0 },
    setSummary: (scope, summary, at, folded) =>
      void prepared.setSummary.run(summary, at, folded.tokens, folded.costUsd, scope.user, scope.session),
    turns: (scope) => prepared.turns.all(scope.user, scope.session),
    insertTurn: (scope, row) =>
      void prepared.insertTurn.run(
        scope.user,
        scope.session,
        row.seq,
        row.runId,
        row.task,
        row.answer,
        row.toolsText,
        row.at,
        row.status ?? 'completed',
        row.usage?.tokens ?? 0,
        row.usage?.costUsd ?? 0,
      ),
    deleteTurn: (scope, seq) => void prepared.deleteTurn.run(scope.user, scope.session, seq),
    facts: (scope) => prepared.facts.all(scope.user, scope.session),
    putFact: (scope, fact) =>
      void prepared.putFact.run(scope.user, scope.session, fact.key, fact.value, fact.sourceRun, fact.updated),
    removeFact: (scope, key) => prepared.removeFact.run(scope.user, scope.session, key).changes,
    close: () => database.close(),
  };
  return createSessionStore(tables, options.clock);
}
