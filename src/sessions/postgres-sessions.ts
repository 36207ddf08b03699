// postgresSessions(url | pool): the SessionStore in the same PostgreSQL schema as the runs (migration 2). Reads go
// through session-store.ts's row readers (a row that cannot be read is reported and kept); each write is one
// transaction that locks the session's row first, so two processes never number a turn twice.
import {
  byKey,
  checked,
  foldedOf,
  foldedUsage,
  label,
  readAll,
  readFact,
  readTurn,
  spentOf,
  usageOf,
  type FactRow,
  type TurnRow,
} from './session-store.js';
import {
  checkSchema,
  createPool,
  inTransaction,
  splitSchema,
  numericTypes,
  postgresFailure,
  quoteIdentifier,
  redactUrl,
  type PostgresClient,
  type PostgresConnectOptions,
  type PostgresPool,
} from '../store/postgres-connection.js';
import { migratePostgres } from '../store/postgres-schema.js';
import { checkFact, type SessionHistory, type SessionScope, type SessionStore, type TurnRecord } from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

export interface PostgresSessionsOptions extends PostgresConnectOptions {
  clock?: { now(): number };
  /** The PostgreSQL schema the tables live in (default "stageloop"): the runs' schema. */
  schema?: string;
}

export function postgresSessions(
  connection: string | PostgresPool,
  options: PostgresSessionsOptions = {},
): SessionStore {
  const clock = options.clock ?? Date;
  const fromUrl = typeof connection === 'string' ? splitSchema(connection) : undefined;
  const schema = checkSchema(options.schema ?? fromUrl?.schema ?? 'stageloop');
  const S = quoteIdentifier(schema);
  const owned = typeof connection === 'string';
  const url = owned ? connection : 'postgres://given-pool/';
  const name = `the PostgreSQL store at ${owned ? redactUrl(connection) : 'the given pool'}`;
  const pool = fromUrl !== undefined ? createPool(fromUrl.url, options, () => undefined) : (connection as PostgresPool);
  const migrated = migratePostgres(pool, schema, name);
  migrated.catch(() => undefined);
  let closed = false;
  const scoped = 'user_id = $1 AND session = $2';
  const sql = {
    summary: `SELECT summary, folded_tokens AS tokens, folded_cost_usd AS "costUsd" FROM ${S}.sessions WHERE ${scoped}`,
    ensure: `INSERT INTO ${S}.sessions (user_id, session, summary, created_at, updated_at) VALUES ($1, $2, '', $3, $3) ON CONFLICT DO NOTHING`,
    lockSession: `SELECT summary, folded_tokens AS tokens, folded_cost_usd AS "costUsd" FROM ${S}.sessions WHERE ${scoped} FOR UPDATE`,
    setSummary: `UPDATE ${S}.sessions SET summary = $3, updated_at = $4, folded_tokens = $5, folded_cost_usd = $6 WHERE ${scoped}`,
    turns: `SELECT seq, run_id AS "runId", task, answer, tools, at, status, tokens, cost_usd AS "costUsd" FROM ${S}.session_turns WHERE ${scoped} ORDER BY seq`,
    lastSeq: `SELECT coalesce(max(seq), 0) AS seq FROM ${S}.session_turns WHERE ${scoped}`,
    runTurn: `DELETE FROM ${S}.session_turns WHERE ${scoped} AND run_id = $3 RETURNING seq`,
    insertTurn: `INSERT INTO ${S}.session_turns (user_id, session, seq, run_id, task, answer, tools, at, status, tokens, cost_usd) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    deleteTurns: `DELETE FROM ${S}.session_turns WHERE ${scoped} AND seq = ANY($3::integer[])`,
    facts: `SELECT key, value, source_run AS "sourceRun", updated_at AS updated FROM ${S}.session_facts WHERE ${scoped} ORDER BY key`,
    putFact: `INSERT INTO ${S}.session_facts (user_id, session, key, value, source_run, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (user_id, session, key) DO UPDATE SET value = excluded.value, source_run = excluded.source_run, updated_at = excluded.updated_at`,
    removeFact: `DELETE FROM ${S}.session_facts WHERE ${scoped} AND key = $3`,
  };
  const query = async (client: PostgresClient | PostgresPool, text: string, values: unknown[]) =>
    (await client.query({ text, values, types: numericTypes() })).rows;
  /** One step once the schema is ready; a failure of the server as one line. */
  const step = async <Result>(body: () => Promise<Result>): Promise<Result> => {
    if (closed) throw new StageloopError('store', `${name} is closed: open the store again`);
    try {
      await migrated;
      return await body();
    } catch (error) {
      throw postgresFailure(url, error);
    }
  };
  /** A write on a session that exists from here on, with its row locked (`row`: what it held then). */
  const write = <Result>(
    scope: SessionScope,
    at: number,
    body: (client: PostgresClient, values: [string, string], row: Record<string, unknown>) => Promise<Result>,
  ) =>
    step(() =>
      inTransaction(pool, async (client) => {
        const values: [string, string] = [scope.user, scope.session];
        await query(client, sql.ensure, [...values, at]);
        const [row] = await query(client, sql.lockSession, values);
        return body(client, values, row ?? {});
      }),
    );

  return {
    name,
    exists: async (scope) => {
      const owned = checked(scope);
      return step(async () => (await query(pool, sql.summary, [owned.user, owned.session])).length > 0);
    },
    load: async (scope) => {
      const owned = checked(scope);
      return step(async (): Promise<SessionHistory> => {
        const values = [owned.user, owned.session];
        const [summary, turnRows, factRows] = await Promise.all([
          query(pool, sql.summary, values),
          query(pool, sql.turns, values),
          query(pool, sql.facts, values),
        ]);
        const problems: string[] = [];
        const where = `${label(owned)} in ${name}`;
        const turns = readAll(turnRows as unknown as TurnRow[], readTurn, where, problems);
        const facts = byKey(readAll(factRows as unknown as FactRow[], readFact, where, problems));
        const spent = spentOf(foldedOf(summary[0]), turns);
        return {
          summary: (summary[0]?.summary as string | undefined) ?? '',
          turns,
          facts,
          problems,
          ...(spent && { spent }),
        };
      });
    },
    appendTurn: async (scope, turn) => {
      const owned = checked(scope);
      return write(owned, turn.at, async (client, values) => {
        // A resumed turn (cancelled, then continued) replaces the one its run left, in its place.
        const [earlier] = await query(client, sql.runTurn, [...values, turn.runId]);
        const [last] =
          earlier === undefined ? await query(client, sql.lastSeq, values) : [{ seq: Number(earlier.seq) - 1 }];
        const record: TurnRecord = { seq: Number(last?.seq ?? 0) + 1, ...turn, tools: [...turn.tools] };
        if (record.status === undefined) delete record.status;
        const usage = usageOf(turn.usage?.tokens, turn.usage?.costUsd);
        if (usage === undefined) delete record.usage;
        else record.usage = usage;
        await query(client, sql.insertTurn, [
          ...values,
          record.seq,
          record.runId,
          record.task,
          record.answer,
          JSON.stringify(record.tools),
          record.at,
          record.status ?? 'completed',
          usage?.tokens ?? 0,
          usage?.costUsd ?? 0,
        ]);
        return record;
      });
    },
    compact: async (scope, foldedSeqs, summary) => {
      const owned = checked(scope);
      return write(owned, clock.now(), async (client, values, session) => {
        const rows = (await query(client, sql.turns, values)) as unknown as TurnRow[];
        const present = new Set(rows.map((row) => Number(row.seq)));
        const missing = foldedSeqs.filter((seq) => !present.has(seq));
        // Another process compacted first: keep its summary rather than fold the same turns twice.
        if (missing.length > 0)
          throw new StageloopError(
            'store',
            `${label(owned)}: turns ${missing.join(', ')} are no longer there to fold; nothing was changed`,
          );
        await query(client, sql.deleteTurns, [...values, [...foldedSeqs]]);
        // What the folded turns spent stays in the session's total (the session budget counts every turn).
        const folding = rows.filter((row) => foldedSeqs.includes(Number(row.seq))).map(readTurn);
        const turns = folding.filter((turn): turn is TurnRecord => typeof turn !== 'string');
        const folded = foldedUsage(foldedOf(session), turns);
        await query(client, sql.setSummary, [...values, summary, clock.now(), folded.tokens, folded.costUsd]);
      });
    },
    listFacts: async (scope) => {
      const owned = checked(scope);
      return step(async () =>
        byKey(
          readAll(
            (await query(pool, sql.facts, [owned.user, owned.session])) as unknown as FactRow[],
            readFact,
            `${label(owned)} in ${name}`,
            [],
          ),
        ),
      );
    },
    setFact: async (scope, fact) => {
      const owned = checked(scope);
      const { key, value } = checkFact(fact.key, fact.value);
      return write(owned, fact.updated, async (client, values) => {
        await query(client, sql.putFact, [...values, key, value, fact.sourceRun, fact.updated]);
      });
    },
    deleteFact: async (scope, key) => {
      const owned = checked(scope);
      return step(async () => {
        const result = await pool.query({ text: sql.removeFact, values: [owned.user, owned.session, key.trim()] });
        return (result.rowCount ?? 0) > 0;
      });
    },
    close() {
      if (closed) return;
      closed = true;
      if (owned) void pool.end().catch(() => undefined);
    },
  };
}
