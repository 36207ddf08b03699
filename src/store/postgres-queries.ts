// The PostgreSQL store's SQL for one schema and the queries that fill its parameters from the rows: apart from
// postgres-store.ts so that file keeps to the RunStore's rules (transactions, fences, leases).
import type { CheckpointRow, EntryRow, RunRow, WritableRow } from './rows.js';
import { numericTypes, quoteIdentifier, type PostgresClient, type PostgresPool } from './postgres-connection.js';
import { runNotFound } from './types.js';

const writableColumns = `id, run_id AS "runId", status, updated_at AS "updatedAt", epoch, owner_id AS "ownerId", owner_pid AS "ownerPid",
  owner_host AS "ownerHost", lease_until AS "leaseUntil", head, iterations, tokens, answer, outcome`;
const runColumns = `${writableColumns}, pipeline, fingerprint, version, input, options, created_at AS "createdAt"`;
const entryColumns = 'seq, kind, zone, iteration, stage, at, data';
const checkpointColumns = 'seq, position, state, state_hash AS "stateHash", at';

/** The store's SQL for one schema. */
export function statements(schema: string) {
  const S = quoteIdentifier(schema);
  return {
    insertRun: `INSERT INTO ${S}.runs (run_id, pipeline, fingerprint, version, input, options, created_at, status, updated_at, epoch, owner_id,
        owner_pid, owner_host, lease_until, head, iterations, tokens, answer, outcome)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) ON CONFLICT (run_id) DO NOTHING RETURNING id`,
    lockRun: `SELECT ${runColumns} FROM ${S}.runs WHERE run_id = $1 FOR UPDATE`,
    lockWritable: `SELECT ${writableColumns} FROM ${S}.runs WHERE run_id = $1 FOR UPDATE`,
    saveRun: `UPDATE ${S}.runs SET status = $2, updated_at = $3, epoch = $4, owner_id = $5, owner_pid = $6, owner_host = $7, lease_until = $8,
        head = $9, iterations = $10, tokens = $11, answer = $12, outcome = $13 WHERE id = $1`,
    saveProgress: `UPDATE ${S}.runs SET updated_at = $2, lease_until = $3, head = $4, iterations = $5, tokens = $6 WHERE id = $1`,
    insertEntries: `INSERT INTO ${S}.journal (run, ${entryColumns})
      SELECT $1, * FROM unnest($2::integer[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::bigint[], $8::text[])`,
    dropCheckpoints: `DELETE FROM ${S}.checkpoints WHERE run = $1 AND seq < $2`,
    putCheckpoint: `INSERT INTO ${S}.checkpoints (run, seq, position, state, state_hash, at) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (run, seq) DO UPDATE SET position = excluded.position, state = excluded.state, state_hash = excluded.state_hash, at = excluded.at`,
    findRun: `SELECT ${runColumns} FROM ${S}.runs WHERE run_id = $1`,
    list: `SELECT ${runColumns} FROM ${S}.runs WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id DESC LIMIT $2`,
    // The page after a run: row values walk the (created_at, id) index from that run on.
    listBefore: `SELECT ${runColumns} FROM ${S}.runs WHERE ($1::text IS NULL OR status = $1)
      AND (created_at, id) < (SELECT created_at, id FROM ${S}.runs WHERE run_id = $3) ORDER BY created_at DESC, id DESC LIMIT $2`,
    journal: `SELECT r.id AS run, j.seq, j.kind, j.zone, j.iteration, j.stage, j.at, j.data FROM ${S}.runs r
      LEFT JOIN ${S}.journal j ON j.run = r.id AND j.seq > $2 WHERE r.run_id = $1 ORDER BY j.seq`,
    checkpoints: `SELECT r.id AS run, c.seq, c.position, c.state, c.state_hash AS "stateHash", c.at FROM ${S}.runs r
      LEFT JOIN ${S}.checkpoints c ON c.run = r.id WHERE r.run_id = $1 ORDER BY c.seq`,
    latestCheckpoint: `SELECT r.id AS run, c.seq, c.position, c.state, c."stateHash", c.at FROM ${S}.runs r
      LEFT JOIN LATERAL (SELECT ${checkpointColumns} FROM ${S}.checkpoints WHERE run = r.id ORDER BY seq DESC LIMIT 1) c ON true WHERE r.run_id = $1`,
  };
}

export type Statements = ReturnType<typeof statements>;

/** One statement's rows, numbers read as numbers. */
export async function query(client: PostgresClient | PostgresPool, text: string, values: unknown[]) {
  return (await client.query({ text, values, types: numericTypes() })).rows;
}

/** The run's row, locked for the transaction (SELECT ... FOR UPDATE); no such run is an error. */
export async function lockRow<Row extends WritableRow>(
  client: PostgresClient,
  text: string,
  runId: string,
): Promise<Row> {
  const [row] = await query(client, text, [runId]);
  if (row === undefined) throw runNotFound(runId);
  return row as unknown as Row;
}

/** The columns a write may change, in the order insertRun and saveRun list them after their own. */
function writableValues(row: WritableRow): unknown[] {
  return [
    row.status,
    row.updatedAt,
    row.epoch,
    row.ownerId,
    row.ownerPid,
    row.ownerHost,
    row.leaseUntil,
    row.head,
    row.iterations,
    row.tokens,
    row.answer,
    row.outcome,
  ];
}

/** Inserts a new run; no row back means the run id is taken. */
export function insertRun(pool: PostgresPool, sql: Statements, row: RunRow) {
  return query(pool, sql.insertRun, [
    row.runId,
    row.pipeline,
    row.fingerprint,
    row.version,
    row.input,
    row.options,
    row.createdAt,
    ...writableValues(row),
  ]);
}

/** Saves every column a write may change. */
export function saveRun(client: PostgresClient, sql: Statements, row: WritableRow) {
  return query(client, sql.saveRun, [row.id, ...writableValues(row)]);
}

/** Saves what an append or a heartbeat changes. */
export function saveProgress(client: PostgresClient, sql: Statements, row: WritableRow) {
  return query(client, sql.saveProgress, [row.id, row.updatedAt, row.leaseUntil, row.head, row.iterations, row.tokens]);
}

/** The journal entries of one append, one column array each (one INSERT ... SELECT unnest). */
export async function insertEntries(
  client: PostgresClient,
  sql: Statements,
  run: number,
  rows: EntryRow[],
): Promise<void> {
  await query(client, sql.insertEntries, [
    run,
    rows.map((row) => row.seq),
    rows.map((row) => row.kind),
    rows.map((row) => row.zone),
    rows.map((row) => row.iteration),
    rows.map((row) => row.stage),
    rows.map((row) => row.at),
    rows.map((row) => row.data),
  ]);
}

/** Writes the checkpoint at its seq (replacing one there), the earlier ones first dropped when asked. */
export async function putCheckpoint(
  client: PostgresClient,
  sql: Statements,
  run: number,
  checkpoint: CheckpointRow,
  dropEarlier: boolean,
): Promise<void> {
  if (dropEarlier) await query(client, sql.dropCheckpoints, [run, checkpoint.seq]);
  await query(client, sql.putCheckpoint, [
    run,
    checkpoint.seq,
    checkpoint.position,
    checkpoint.state,
    checkpoint.stateHash,
    checkpoint.at,
  ]);
}

/** The rows of a LEFT JOIN on the run: none means no such run, a row without seq means the run has none. */
export function present(rows: Array<Record<string, unknown>>, runId: string): Array<Record<string, unknown>> {
  if (rows.length === 0) throw runNotFound(runId);
  return rows.filter((row) => row.seq !== null && row.seq !== undefined);
}
