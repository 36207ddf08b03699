// postgresStore(url | pool): the RunStore in PostgreSQL, shared by every host that reaches the server. Each write is
// one transaction that locks the run's row (SELECT ... FOR UPDATE), applies the same rules as the other stores
// (run-store.ts: the fence, contiguity, leases) and writes; a failed write rolls back whole.
import {
  newRunRow,
  toCheckpoint,
  toCheckpointRow,
  toEntry,
  toEntryRow,
  toSummary,
  jsonText,
  type CheckpointRow,
  type EntryRow,
  type RunRow,
  type WritableRow,
} from './rows.js';
import {
  appendRow,
  checkFence,
  checkPositive,
  claimRow,
  finishRow,
  listLimit,
  releaseRow,
  type StoreClock,
} from './run-store.js';
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
} from './postgres-connection.js';
import { changeChannel, migratePostgres } from './postgres-schema.js';
import { RunExistsError, runNotFound, type Claim, type RunStore, type StoredRunStatus } from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

export interface PostgresStoreOptions extends PostgresConnectOptions {
  /** The clock leases are measured against (default: Date). */
  clock?: StoreClock;
  /** The PostgreSQL schema the tables live in (default "stageloop"), so several stores can share one database. */
  schema?: string;
}

const writableColumns = `id, run_id AS "runId", status, updated_at AS "updatedAt", epoch, owner_id AS "ownerId", owner_pid AS "ownerPid",
  owner_host AS "ownerHost", lease_until AS "leaseUntil", head, iterations, tokens, answer, outcome`;
const runColumns = `${writableColumns}, pipeline, fingerprint, version, input, options, created_at AS "createdAt"`;
const entryColumns = 'seq, kind, zone, iteration, stage, at, data';
const checkpointColumns = 'seq, position, state, state_hash AS "stateHash", at';

/** The store's SQL for one schema. */
function statements(schema: string) {
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

/** Opens the PostgreSQL store at `connection` (a postgres:// URL, or a pool the caller owns and ends). */
export function postgresStore(connection: string | PostgresPool, options: PostgresStoreOptions = {}): RunStore {
  const clock = options.clock ?? Date;
  const fromUrl = typeof connection === 'string' ? splitSchema(connection) : undefined;
  const schema = checkSchema(options.schema ?? fromUrl?.schema ?? 'stageloop');
  const owned = typeof connection === 'string';
  const url = owned ? connection : 'postgres://given-pool/';
  const name = `the PostgreSQL store at ${owned ? redactUrl(connection) : 'the given pool'}`;
  const pool = fromUrl !== undefined ? createPool(fromUrl.url, options, () => undefined) : (connection as PostgresPool);
  const sql = statements(schema);
  const failure = (error: unknown) => postgresFailure(url, error);
  let closed = false;
  const migrated = migratePostgres(pool, schema, name).catch((error: unknown) => {
    throw failure(error);
  });
  migrated.catch(() => undefined);

  /** Runs a step once the schema is ready, with its failure as one line. */
  const step = async <Result>(body: () => Promise<Result>): Promise<Result> => {
    if (closed) throw new StageloopError('store', `${name} is closed: open the store again`);
    await migrated;
    try {
      return await body();
    } catch (error) {
      throw failure(error);
    }
  };
  const query = async (client: PostgresClient | PostgresPool, text: string, values: unknown[]) =>
    (await client.query({ text, values, types: numericTypes() })).rows;
  const lock = async <Row extends WritableRow>(client: PostgresClient, text: string, runId: string): Promise<Row> => {
    const [row] = await query(client, text, [runId]);
    if (row === undefined) throw runNotFound(runId);
    return row as unknown as Row;
  };
  const saveRun = (client: PostgresClient, row: WritableRow) =>
    query(client, sql.saveRun, [
      row.id,
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
    ]);
  /** One fenced write: the row locked, the claim checked and the change saved in one transaction. */
  const fenced = (
    claim: Claim,
    change: (row: WritableRow, now: number, client: PostgresClient) => Promise<void> | void,
    ends = false,
  ) =>
    step(() =>
      inTransaction(pool, async (client) => {
        const row = await lock<WritableRow>(client, sql.lockWritable, claim.runId);
        checkFence(row, claim);
        const now = clock.now();
        await change(row, now, client);
        row.updatedAt = now;
        if (ends) await saveRun(client, row);
        else
          await query(client, sql.saveProgress, [
            row.id,
            row.updatedAt,
            row.leaseUntil,
            row.head,
            row.iterations,
            row.tokens,
          ]);
      }),
    );

  return {
    async create(header, owner, leaseMs) {
      checkPositive('leaseMs', leaseMs);
      const row = newRunRow(0, header, owner, clock.now(), leaseMs);
      return step(async () => {
        const inserted = await query(pool, sql.insertRun, [
          row.runId,
          row.pipeline,
          row.fingerprint,
          row.version,
          row.input,
          row.options,
          row.createdAt,
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
        ]);
        if (inserted.length === 0) throw new RunExistsError(header.runId);
        return { runId: header.runId, epoch: 1, owner: { ...owner } };
      });
    },

    async claim(runId, owner, claimOptions = {}) {
      checkPositive('leaseMs', claimOptions.leaseMs);
      return step(() =>
        inTransaction(pool, async (client) => {
          const row = await lock<RunRow>(client, sql.lockRun, runId);
          const claim = claimRow(row, owner, claimOptions, clock.now());
          await saveRun(client, row);
          return { claim, run: toSummary(row) };
        }),
      );
    },

    async append(claim, entries, appendOptions = {}) {
      const entryRows = entries.map((entry) => toEntryRow(claim.runId, entry));
      const checkpointRow = appendOptions.checkpoint && toCheckpointRow(claim.runId, appendOptions.checkpoint);
      await fenced(claim, async (row, now, client) => {
        appendRow(row, entryRows, checkpointRow, appendOptions, now);
        if (entryRows.length > 0) await insertEntries(client, row.id, entryRows);
        if (checkpointRow)
          await putCheckpoint(client, row.id, checkpointRow, appendOptions.dropEarlierCheckpoints === true);
      });
    },

    async heartbeat(claim, leaseMs) {
      checkPositive('leaseMs', leaseMs);
      await fenced(claim, (row, now) => {
        row.leaseUntil = now + leaseMs;
      });
    },

    async finish(claim, outcome) {
      const outcomeText = jsonText(`the outcome of run ${claim.runId}`, outcome);
      await fenced(claim, (row) => finishRow(row, outcome, outcomeText), true);
    },

    async release(claim, status: StoredRunStatus) {
      await fenced(claim, (row) => releaseRow(row, status), true);
    },

    async get(runId) {
      const [row] = await step(() => query(pool, sql.findRun, [runId]));
      return row && toSummary(row as unknown as RunRow);
    },

    async list(filter = {}) {
      const limit = listLimit(filter.limit);
      const pageSize = limit === -1 ? null : limit;
      if (filter.before !== undefined) {
        const [after] = await step(() => query(pool, sql.findRun, [filter.before]));
        if (after === undefined) throw runNotFound(filter.before);
      }
      const rows = await step(() =>
        filter.before === undefined
          ? query(pool, sql.list, [filter.status ?? null, pageSize])
          : query(pool, sql.listBefore, [filter.status ?? null, pageSize, filter.before]),
      );
      return rows.map((row) => toSummary(row as unknown as RunRow));
    },

    async journal(runId, afterSeq = 0) {
      const rows = await step(() => query(pool, sql.journal, [runId, afterSeq]));
      return present(rows, runId).map((row) => toEntry(row as unknown as EntryRow));
    },

    async latestCheckpoint(runId) {
      const rows = await step(() => query(pool, sql.latestCheckpoint, [runId]));
      return present(rows, runId).map((row) => toCheckpoint(row as unknown as CheckpointRow))[0];
    },

    async checkpoints(runId) {
      const rows = await step(() => query(pool, sql.checkpoints, [runId]));
      return present(rows, runId).map((row) => toCheckpoint(row as unknown as CheckpointRow));
    },

    async watch(onChange) {
      // One connection held for the feed: LISTEN lasts as long as its session.
      const client = await step(() => pool.connect());
      client.on('notification', (message) => message.payload !== undefined && onChange(message.payload));
      // A feed whose server ended the session emits 'error' on the held client: it must not end the process.
      let lost = false;
      client.on('error', () => void (lost = true));
      try {
        await client.query(`LISTEN ${quoteIdentifier(changeChannel(schema))}`);
      } catch (error) {
        client.release(true);
        throw failure(error);
      }
      let stopped = false;
      return async () => {
        if (stopped) return;
        stopped = true;
        if (!lost) await client.query('UNLISTEN *').catch(() => undefined);
        client.release(lost);
      };
    },

    async prune(pruning) {
      const S = quoteIdentifier(schema);
      const ended = `status IN ('completed', 'stopped', 'failed', 'cancelled')`;
      return step(() =>
        inTransaction(pool, async (client) => {
          const verb = pruning.dryRun ? 'SELECT 1 FROM' : 'DELETE FROM';
          let checkpoints = 0;
          let runs = 0;
          if (pruning.checkpoints) {
            const dropped = await client.query({
              text: `${verb} ${S}.checkpoints c WHERE c.run IN (SELECT id FROM ${S}.runs WHERE ${ended})
                AND c.seq < (SELECT max(seq) FROM ${S}.checkpoints last WHERE last.run = c.run)`,
            });
            checkpoints = dropped.rowCount ?? 0;
          }
          if (pruning.endedBefore !== undefined) {
            // The journal and checkpoints go with their run (ON DELETE CASCADE).
            const deleted = await client.query({
              text: `${verb} ${S}.runs WHERE ${ended} AND updated_at < $1`,
              values: [pruning.endedBefore],
            });
            runs = deleted.rowCount ?? 0;
          }
          return { runs, checkpoints };
        }),
      );
    },

    async close() {
      if (closed) return;
      closed = true;
      if (owned) await pool.end().catch(() => undefined);
    },
  };

  async function insertEntries(client: PostgresClient, run: number, rows: EntryRow[]): Promise<void> {
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

  async function putCheckpoint(
    client: PostgresClient,
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
}

/** The rows of a LEFT JOIN on the run: none means no such run, a row without seq means the run has none. */
function present(rows: Array<Record<string, unknown>>, runId: string): Array<Record<string, unknown>> {
  if (rows.length === 0) throw runNotFound(runId);
  return rows.filter((row) => row.seq !== null && row.seq !== undefined);
}
