// memoryStore(): the RunStore in this process's memory, for tests and for runs that need no durability. Rows hold
// JSON text, so what a caller stores or reads back is always a copy.
import { createRunStore, type RunTables, type StoreClock } from './run-store.js';
import type { CheckpointRow, EntryRow, RunRow, WritableRow } from './rows.js';
import type { RunStore } from './types.js';

export interface MemoryStoreOptions {
  /** The clock leases are measured against (default: Date). */
  clock?: StoreClock;
}

interface MemoryRun {
  /** The row as inserted, for its header's columns (a task can be large): a write never copies them. */
  header: RunRow;
  /** The columns a write changes, replaced whole by each write. */
  columns: WritableRow;
  journal: EntryRow[];
  /** Ordered by seq; a later checkpoint at the same seq replaces the earlier one. */
  checkpoints: CheckpointRow[];
}

export function memoryStore(options: MemoryStoreOptions = {}): RunStore {
  const runs = new Map<string, MemoryRun>();
  let lastId = 0;
  const stored = (row: WritableRow): MemoryRun => runs.get(row.runId)!;

  const tables: RunTables = {
    name: 'the memory store',
    // One thread and no await inside a body: a body runs alone, and it validates before it changes anything.
    write: (body) => body(),
    read: (body) => body(),
    findRun(runId) {
      const run = runs.get(runId);
      return run && { ...run.header, ...run.columns };
    },
    findWritable(runId) {
      const run = runs.get(runId);
      return run && writableColumns(run.columns);
    },
    nextRunId: () => ++lastId,
    insertRun(row) {
      runs.set(row.runId, { header: { ...row }, columns: writableColumns(row), journal: [], checkpoints: [] });
    },
    saveRun(row) {
      stored(row).columns = writableColumns(row);
    },
    saveProgress: (row) => tables.saveRun(row),
    insertEntries(row, entries) {
      stored(row).journal.push(...entries);
    },
    putCheckpoint(row, checkpoint, dropEarlier) {
      const run = stored(row);
      if (dropEarlier) run.checkpoints = [checkpoint];
      else if (run.checkpoints.at(-1)?.seq === checkpoint.seq) run.checkpoints[run.checkpoints.length - 1] = checkpoint;
      else run.checkpoints.push(checkpoint);
    },
    listRuns(status, limit, before) {
      const rows: RunRow[] = [];
      const listed = (row: RunRow) =>
        before === undefined ||
        row.createdAt < before.createdAt ||
        (row.createdAt === before.createdAt && row.id < before.id);
      for (const run of runs.values()) {
        const row = { ...run.header, ...run.columns };
        if ((status === undefined || row.status === status) && listed(row)) rows.push(row);
      }
      rows.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
      return limit === -1 ? rows : rows.slice(0, limit);
    },
    journal(row, afterSeq) {
      // seq n sits at index n - 1: contiguity is enforced on every append.
      return stored(row).journal.slice(Math.max(0, afterSeq));
    },
    checkpoints(row, latestOnly) {
      const list = stored(row).checkpoints;
      return latestOnly ? list.slice(-1) : [...list];
    },
    close() {
      runs.clear();
    },
  };
  return createRunStore(tables, options.clock);
}

/** A copy of the columns a write changes: the caller's row may carry the header's too, and is never kept itself. */
function writableColumns(row: WritableRow): WritableRow {
  return {
    id: row.id,
    runId: row.runId,
    status: row.status,
    updatedAt: row.updatedAt,
    epoch: row.epoch,
    ownerId: row.ownerId,
    ownerPid: row.ownerPid,
    ownerHost: row.ownerHost,
    leaseUntil: row.leaseUntil,
    head: row.head,
    iterations: row.iterations,
    tokens: row.tokens,
    answer: row.answer,
    outcome: row.outcome,
  };
}
