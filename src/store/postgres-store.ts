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
  postgresFailure,
  quoteIdentifier,
  redactUrl,
  type PostgresClient,
  type PostgresConnectOptions,
  type PostgresPool,
} from './postgres-connection.js';
import {
  insertEntries,
  insertRun,
  lockRow,
  present,
  putCheckpoint,
  query,
  saveProgress,
  saveRun,
  statements,
} from './postgres-queries.js';
import { changeChannel, migratePostgres } from './postgres-schema.js';
import { RunExistsError, runNotFound, type Claim, type RunStore, type StoredRunStatus } from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

export interface PostgresStoreOptions extends PostgresConnectOptions {
  /** The clock leases are measured against (default: Date). */
  clock?: StoreClock;
  /** The PostgreSQL schema the tables live in (default "stageloop"), so several stores can share one database. */
  schema?: string;
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
  /** One fenced write: the row locked, the claim checked and the change saved in one transaction. */
  const fenced = (
    claim: Claim,
    change: (row: WritableRow, now: number, client: PostgresClient) => Promise<void> | void,
    ends = false,
  ) =>
    step(() =>
      inTransaction(pool, async (client) => {
        const row = await lockRow<WritableRow>(client, sql.lockWritable, claim.runId);
        checkFence(row, claim);
        const now = clock.now();
        await change(row, now, client);
        row.updatedAt = now;
        if (ends) await saveRun(client, sql, row);
        else await saveProgress(client, sql, row);
      }),
    );

  return {
    async create(header, owner, leaseMs) {
      checkPositive('leaseMs', leaseMs);
      const row = newRunRow(0, header, owner, clock.now(), leaseMs);
      return step(async () => {
        const inserted = await insertRun(pool, sql, row);
        if (inserted.length === 0) throw new RunExistsError(header.runId);
        return { runId: header.runId, epoch: 1, owner: { ...owner } };
      });
    },

    async claim(runId, owner, claimOptions = {}) {
      checkPositive('leaseMs', claimOptions.leaseMs);
      return step(() =>
        inTransaction(pool, async (client) => {
          const row = await lockRow<RunRow>(client, sql.lockRun, runId);
          const claim = claimRow(row, owner, claimOptions, clock.now());
          await saveRun(client, sql, row);
          return { claim, run: toSummary(row) };
        }),
      );
    },

    async append(claim, entries, appendOptions = {}) {
      const entryRows = entries.map((entry) => toEntryRow(claim.runId, entry));
      const checkpointRow = appendOptions.checkpoint && toCheckpointRow(claim.runId, appendOptions.checkpoint);
      await fenced(claim, async (row, now, client) => {
        appendRow(row, entryRows, checkpointRow, appendOptions, now);
        if (entryRows.length > 0) await insertEntries(client, sql, row.id, entryRows);
        if (checkpointRow)
          await putCheckpoint(client, sql, row.id, checkpointRow, appendOptions.dropEarlierCheckpoints === true);
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
}
