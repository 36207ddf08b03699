// sqliteStore(path): the RunStore in one SQLite file (WAL, busy timeout, synchronous NORMAL or FULL), shared safely
// by processes on this host; every write is one IMMEDIATE transaction that checks the claim's epoch.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRunStore, type RunTables, type StoreClock } from './run-store.js';
import { openDatabase } from './sqlite-schema.js';
import { storeFailure } from './sqlite-errors.js';
import type { SqliteDriverName } from './sqlite-driver.js';
import type { CheckpointRow, EntryRow, RunRow, WritableRow } from './rows.js';
import type { RunStore } from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

export interface SqliteStoreOptions {
  /** 'process' (default): synchronous=NORMAL, survives a crash of the process; 'power': FULL, survives power loss. */
  durability?: 'process' | 'power';
  /** How long a write waits for another process's transaction, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** The clock leases are measured against (default: Date). */
  clock?: StoreClock;
  /** Which SQLite driver opens the file (default: node:sqlite where Node has it, else better-sqlite3). */
  driver?: SqliteDriverName;
}

const writableColumns = `id, run_id AS runId, status, updated_at AS updatedAt, epoch, owner_id AS ownerId, owner_pid AS ownerPid,
  owner_host AS ownerHost, lease_until AS leaseUntil, head, iterations, tokens, answer, outcome`;
const runColumns = `${writableColumns}, pipeline, fingerprint, version, input, options, created_at AS createdAt`;
// A journal or checkpoint row's key is (run << 32) + seq (schema 5): a run's rows are one range of keys, in seq order.
const entryColumns = 'key & 4294967295 AS seq, kind, zone, iteration, stage, at, data';
const checkpointColumns = 'key & 4294967295 AS seq, position, state, state_hash AS stateHash, at';
const runKeys = 'key >= ? << 32 AND key < (? + 1) << 32';
/** The largest seq a key has room for. */
const lastSeq = 0xffff_ffff;

export function sqliteStore(path: string, options: SqliteStoreOptions = {}): RunStore {
  const file = resolve(path);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  if (!(Number.isInteger(busyTimeoutMs) && busyTimeoutMs >= 0))
    throw new StageloopError(
      'store',
      `busyTimeoutMs must be a whole number of ms >= 0, got ${String(options.busyTimeoutMs)}`,
    );
  const durability = options.durability ?? 'process';
  if (durability !== 'process' && durability !== 'power')
    throw new StageloopError('store', `durability must be "process" or "power", got "${String(durability)}"`);
  const database = openDatabase(file, {
    durability,
    busyTimeoutMs,
    ...(options.driver !== undefined && { driver: options.driver }),
  });
  const failure = (error: unknown) => storeFailure(file, error, busyTimeoutMs);
  let statements;
  try {
    statements = {
      findRun: database.prepare<[string], RunRow>(`SELECT ${runColumns} FROM runs WHERE run_id = ?`),
      findWritable: database.prepare<[string], WritableRow>(`SELECT ${writableColumns} FROM runs WHERE run_id = ?`),
      nextRunId: database.prepare<[], number>('SELECT coalesce(max(id), 0) + 1 FROM runs').pluck(),
      insertRun: database.prepare<[RunRow]>(
        `INSERT INTO runs (id, run_id, pipeline, fingerprint, version, input, options, created_at, status, updated_at, epoch, owner_id,
           owner_pid, owner_host, lease_until, head, iterations, tokens, answer, outcome)
         VALUES (@id, @runId, @pipeline, @fingerprint, @version, @input, @options, @createdAt, @status, @updatedAt, @epoch, @ownerId,
           @ownerPid, @ownerHost, @leaseUntil, @head, @iterations, @tokens, @answer, @outcome)`,
      ),
      saveRun: database.prepare<[WritableRow]>(
        `UPDATE runs SET status = @status, updated_at = @updatedAt, epoch = @epoch, owner_id = @ownerId, owner_pid = @ownerPid,
           owner_host = @ownerHost, lease_until = @leaseUntil, head = @head, iterations = @iterations, tokens = @tokens,
           answer = @answer, outcome = @outcome WHERE id = @id`,
      ),
      saveProgress: database.prepare<[WritableRow]>(
        'UPDATE runs SET updated_at = @updatedAt, lease_until = @leaseUntil, head = @head, iterations = @iterations, tokens = @tokens WHERE id = @id',
      ),
      insertEntry: database.prepare<[number, number, string, string, number, string | null, number, string]>(
        'INSERT INTO journal (key, kind, zone, iteration, stage, at, data) VALUES ((? << 32) + ?, ?, ?, ?, ?, ?, ?)',
      ),
      putCheckpoint: database.prepare<[number, number, string, string, string, number]>(
        'INSERT OR REPLACE INTO checkpoints (key, position, state, state_hash, at) VALUES ((? << 32) + ?, ?, ?, ?, ?)',
      ),
      dropCheckpoints: database.prepare<[number, number, number]>(
        'DELETE FROM checkpoints WHERE key >= ? << 32 AND key < (? << 32) + ?',
      ),
      listAll: database.prepare<[number], RunRow>(
        `SELECT ${runColumns} FROM runs ORDER BY created_at DESC, id DESC LIMIT ?`,
      ),
      listByStatus: database.prepare<[string, number], RunRow>(
        `SELECT ${runColumns} FROM runs WHERE status = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
      ),
      // Row values walk the (created_at, id) indexes from the cursor: a page deep in 100,000 runs costs what the first does.
      listAllBefore: database.prepare<[number, number, number], RunRow>(
        `SELECT ${runColumns} FROM runs WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
      ),
      listByStatusBefore: database.prepare<[string, number, number, number], RunRow>(
        `SELECT ${runColumns} FROM runs WHERE status = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
      ),
      journal: database.prepare<[number, number, number], EntryRow>(
        `SELECT ${entryColumns} FROM journal WHERE key > (? << 32) + ? AND key < (? + 1) << 32 ORDER BY key`,
      ),
      checkpoints: database.prepare<[number, number], CheckpointRow>(
        `SELECT ${checkpointColumns} FROM checkpoints WHERE ${runKeys} ORDER BY key`,
      ),
      latestCheckpoint: database.prepare<[number, number], CheckpointRow>(
        `SELECT ${checkpointColumns} FROM checkpoints WHERE ${runKeys} ORDER BY key DESC LIMIT 1`,
      ),
    };
  } catch (error) {
    database.close();
    throw failure(error);
  }
  const prepared = statements;
  const opened = statSync(file);
  /** The file's change time when its permissions were last found writable: a chmod changes it. */
  let writableAt: number | undefined;

  /**
   * SQLite in WAL mode goes on writing to a removed file (those writes would vanish with the process) and through
   * an open descriptor to a file made read-only since: ask the file system before each write transaction. The
   * permission check (a second system call) is skipped while the change time is the one it last passed with, once
   * that time is a second old (a change stamps a coarse clock: one within the same tick would keep the time).
   */
  const checkInPlace = (): void => {
    const now = statSync(file, { throwIfNoEntry: false });
    if (now === undefined || now.ino !== opened.ino || now.dev !== opened.dev) {
      throw new StageloopError(
        'store',
        `store ${file} was removed or replaced while this process had it open: its writes can no longer be kept; restore the file, then resume the run`,
      );
    }
    if (writableAt === now.ctimeMs) return;
    try {
      accessSync(file, constants.W_OK);
    } catch (error) {
      throw new StageloopError(
        'store',
        `store ${file} was made read-only (${(error as NodeJS.ErrnoException).code}): make it writable, then resume the run`,
      );
    }
    if (Date.now() - now.ctimeMs > 1_000) writableAt = now.ctimeMs;
  };

  const tables: RunTables = {
    name: `store ${file}`,
    write<Result>(body: () => Result): Result {
      try {
        checkInPlace();
        // IMMEDIATE takes the write lock up front: a read-then-write body never meets a newer snapshot half way.
        return database.immediate(body);
      } catch (error) {
        throw failure(error);
      }
    },
    read<Result>(body: () => Result): Result {
      try {
        return body();
      } catch (error) {
        throw failure(error);
      }
    },
    findRun: (runId) => prepared.findRun.get(runId),
    findWritable: (runId) => prepared.findWritable.get(runId),
    nextRunId: () => prepared.nextRunId.get() ?? 1,
    insertRun: (row) => void prepared.insertRun.run(row),
    saveRun: (row) => void prepared.saveRun.run(row),
    saveProgress: (row) => void prepared.saveProgress.run(row),
    insertEntries(row, entries) {
      const last = entries[entries.length - 1];
      if (last !== undefined && last.seq > lastSeq)
        throw new StageloopError(
          'store',
          `run ${row.runId} has ${lastSeq} journal entries, as many as a SQLite store keeps for one run: start a new run`,
        );
      for (const entry of entries)
        prepared.insertEntry.run(
          row.id,
          entry.seq,
          entry.kind,
          entry.zone,
          entry.iteration,
          entry.stage,
          entry.at,
          entry.data,
        );
    },
    putCheckpoint(row, checkpoint, dropEarlier) {
      if (dropEarlier) prepared.dropCheckpoints.run(row.id, row.id, checkpoint.seq);
      prepared.putCheckpoint.run(
        row.id,
        checkpoint.seq,
        checkpoint.position,
        checkpoint.state,
        checkpoint.stateHash,
        checkpoint.at,
      );
    },
    listRuns: (status, limit, before) => {
      if (before === undefined)
        return status === undefined ? prepared.listAll.all(limit) : prepared.listByStatus.all(status, limit);
      return status === undefined
        ? prepared.listAllBefore.all(before.createdAt, before.id, limit)
        : prepared.listByStatusBefore.all(status, before.createdAt, before.id, limit);
    },
    journal: (row, afterSeq) => prepared.journal.all(row.id, afterSeq, row.id),
    checkpoints: (row, latestOnly) =>
      latestOnly ? prepared.latestCheckpoint.all(row.id, row.id) : prepared.checkpoints.all(row.id, row.id),
    close: () => database.close(),
  };
  return createRunStore(tables, options.clock);
}
