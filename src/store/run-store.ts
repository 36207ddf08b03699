// The RunStore rules, written once over a small table interface: epoch fencing, leases, journal contiguity and
// atomic writes. memory-store.ts and sqlite-store.ts only say where the rows live.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  ownerColumns,
  ownerOf,
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
  RunBusyError,
  RunExistsError,
  RunFinishedError,
  runNotFound,
  sequenceMismatch,
  staleClaim,
  type AppendOptions,
  type Claim,
  type ClaimOptions,
  type Owner,
  type RunOutcomeRecord,
  type RunStore,
  type StoredRunStatus,
} from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

/** Where the rows live. `write` runs its body as one atomic transaction that excludes other writers. */
export interface RunTables {
  /** Names the store in messages: its file, or "the memory store". */
  readonly name: string;
  write<Result>(body: () => Result): Result;
  read<Result>(body: () => Result): Result;
  findRun(runId: string): RunRow | undefined;
  /** The run's writable columns only: a fenced write never reads the header (a task can be large). */
  findWritable(runId: string): WritableRow | undefined;
  nextRunId(): number;
  insertRun(row: RunRow): void;
  saveRun(row: WritableRow): void;
  /** Saves what an append or heartbeat changes; status and owner stay, so SQLite leaves the status index alone. */
  saveProgress(row: WritableRow): void;
  insertEntries(row: WritableRow, entries: EntryRow[]): void;
  /** Adds (or, at the same seq, replaces) a checkpoint; `dropEarlier` deletes the run's older ones with it. */
  putCheckpoint(row: WritableRow, checkpoint: CheckpointRow, dropEarlier: boolean): void;
  /** Newest first (createdAt, then id); with `before`, only rows strictly after that position. */
  listRuns(status: StoredRunStatus | undefined, limit: number, before?: ListPosition): RunRow[];
  journal(row: WritableRow, afterSeq: number): EntryRow[];
  checkpoints(row: WritableRow, latestOnly: boolean): CheckpointRow[];
  close(): void;
}

/** Where a run stands in the list order. */
export interface ListPosition {
  createdAt: number;
  id: number;
}

export interface StoreClock {
  now(): number;
}

const thisHost = hostname();

/** Whether a process with this pid exists on this host (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  // 0 and negative pids name process groups to kill(): never a sign that this owner lives.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** A killed process its parent has not reaped yet still answers kill(pid, 0); Linux shows it as state Z (or X). */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .charAt(0);
    return state === 'Z' || state === 'X';
  } catch {
    return false; // gone between the two looks, or no /proc: kill() said it was there
  }
}

/** A lease binds others while it has not expired and its holder is on another host or still alive on this one. */
export function leaseIsLive(holder: Owner | null, leaseUntil: number | null, now: number): boolean {
  if (holder === null || leaseUntil === null || leaseUntil <= now) return false;
  return holder.host !== thisHost || pidAlive(holder.pid);
}

/** The fence every write passes in its transaction: the claim's epoch and owner must still be the run's. */
export function checkFence(row: WritableRow, claim: Claim): void {
  if (row.epoch !== claim.epoch) throw staleClaim(row.runId, claim.epoch, row.epoch);
  if (row.ownerId !== claim.owner.id) throw staleClaim(row.runId, claim.epoch, row.epoch, true);
}

export function checkPositive(what: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0))
    throw new StageloopError('store', `${what} must be a number of ms >= 0, got ${String(value)}`);
}

/** A claim's change to the run's row (read under the write lock): refuses a finished run and a live holder. */
export function claimRow(row: RunRow, owner: Owner, options: ClaimOptions, now: number): Claim {
  if (row.status === 'completed' || row.status === 'stopped') throw new RunFinishedError(row.runId, row.status);
  const holder = ownerOf(row);
  if (holder !== null && holder.id !== owner.id && !options.force && leaseIsLive(holder, row.leaseUntil, now))
    throw new RunBusyError(row.runId, holder);
  row.epoch += 1;
  Object.assign(row, ownerColumns(owner));
  row.leaseUntil = now + (options.leaseMs ?? 30_000);
  row.status = 'running';
  row.updatedAt = now;
  return { runId: row.runId, epoch: row.epoch, owner: { ...owner } };
}

/** An append's change to the run's row, after the fence: contiguous seqs, a checkpoint inside the write, progress. */
export function appendRow(
  row: WritableRow,
  entries: readonly EntryRow[],
  checkpoint: CheckpointRow | undefined,
  options: AppendOptions,
  now: number,
): void {
  entries.forEach((entry, index) => {
    if (entry.seq !== row.head + 1 + index) throw sequenceMismatch(row.runId, row.head + 1 + index, entry.seq);
  });
  const head = row.head + entries.length;
  // A checkpoint follows an entry of this write (or the head when it writes none): never one not yet written.
  if (checkpoint && (checkpoint.seq > head || checkpoint.seq < Math.min(row.head + 1, head)))
    throw sequenceMismatch(row.runId, head, checkpoint.seq);
  row.head = head;
  if (options.checkpoint) row.iterations = options.checkpoint.position.iteration;
  if (options.progress) ({ iterations: row.iterations, tokens: row.tokens } = options.progress);
  if (options.leaseMs !== undefined) row.leaseUntil = now + options.leaseMs;
  row.updatedAt = now;
}

/** Ends the owner's hold: status set, lease and owner cleared. */
export function releaseRow(row: WritableRow, status: StoredRunStatus): void {
  row.status = status;
  row.leaseUntil = null;
  Object.assign(row, ownerColumns(null));
}

/** The outcome's columns, set by finish. */
export function finishRow(row: WritableRow, outcome: RunOutcomeRecord, outcomeText: string): void {
  releaseRow(row, outcome.status);
  row.answer = outcome.answer;
  row.iterations = outcome.iterations;
  row.tokens = outcome.tokens;
  row.outcome = outcomeText;
}

/** The list limit as the tables take it: -1 for none. */
export function listLimit(limit: number | undefined): number {
  const value = limit ?? -1;
  if (!Number.isInteger(value) || value < -1)
    throw new StageloopError('store', `list limit must be a whole number >= 0, got ${String(limit)}`);
  return value;
}

export function createRunStore(tables: RunTables, clock: StoreClock = Date): RunStore {
  let closed = false;
  const ready = (): void => {
    if (closed) throw new StageloopError('store', `${tables.name} is closed: open the store again`);
  };
  const mustFind = <Row>(runId: string, find: (runId: string) => Row | undefined): Row => {
    const row = find(runId);
    if (row === undefined) throw runNotFound(runId);
    return row;
  };
  /** One fenced write: the claim's epoch is checked in the same transaction that writes. */
  const fenced = (claim: Claim, body: (row: WritableRow, now: number) => void, ends = false): void => {
    ready();
    tables.write(() => {
      const row = mustFind(claim.runId, tables.findWritable);
      checkFence(row, claim);
      const now = clock.now();
      body(row, now);
      row.updatedAt = now;
      if (ends) tables.saveRun(row);
      else tables.saveProgress(row);
    });
  };
  return {
    async create(header, owner, leaseMs) {
      ready();
      checkPositive('leaseMs', leaseMs);
      return tables.write(() => {
        if (tables.findRun(header.runId) !== undefined) throw new RunExistsError(header.runId);
        tables.insertRun(newRunRow(tables.nextRunId(), header, owner, clock.now(), leaseMs));
        return { runId: header.runId, epoch: 1, owner: { ...owner } };
      });
    },

    async claim(runId, owner, options = {}) {
      ready();
      checkPositive('leaseMs', options.leaseMs);
      return tables.write(() => {
        const row = mustFind(runId, tables.findRun);
        const claim = claimRow(row, owner, options, clock.now());
        tables.saveRun(row);
        return { claim, run: toSummary(row) };
      });
    },

    async append(claim, entries, options = {}) {
      const entryRows = entries.map((entry) => toEntryRow(claim.runId, entry));
      const checkpointRow = options.checkpoint && toCheckpointRow(claim.runId, options.checkpoint);
      fenced(claim, (row, now) => {
        appendRow(row, entryRows, checkpointRow, options, now);
        if (entryRows.length > 0) tables.insertEntries(row, entryRows);
        if (checkpointRow) tables.putCheckpoint(row, checkpointRow, options.dropEarlierCheckpoints === true);
      });
    },

    async heartbeat(claim, leaseMs) {
      checkPositive('leaseMs', leaseMs);
      fenced(claim, (row, now) => {
        row.leaseUntil = now + leaseMs;
      });
    },

    async finish(claim, outcome) {
      const outcomeText = jsonText(`the outcome of run ${claim.runId}`, outcome);
      fenced(claim, (row) => finishRow(row, outcome, outcomeText), true);
    },

    async release(claim, status) {
      fenced(claim, (row) => releaseRow(row, status), true);
    },

    async get(runId) {
      ready();
      const row = tables.read(() => tables.findRun(runId));
      return row && toSummary(row);
    },

    async list(filter = {}) {
      ready();
      const limit = listLimit(filter.limit);
      return tables
        .read(() => {
          if (filter.before === undefined) return tables.listRuns(filter.status, limit);
          const after = tables.findRun(filter.before);
          if (after === undefined) throw runNotFound(filter.before);
          return tables.listRuns(filter.status, limit, { createdAt: after.createdAt, id: after.id });
        })
        .map(toSummary);
    },

    async journal(runId, afterSeq = 0) {
      ready();
      return tables.read(() => tables.journal(mustFind(runId, tables.findWritable), afterSeq)).map(toEntry);
    },

    async latestCheckpoint(runId) {
      ready();
      const [latest] = tables.read(() => tables.checkpoints(mustFind(runId, tables.findWritable), true));
      return latest && toCheckpoint(latest);
    },

    async checkpoints(runId) {
      ready();
      return tables.read(() => tables.checkpoints(mustFind(runId, tables.findWritable), false)).map(toCheckpoint);
    },

    async close() {
      if (closed) return;
      closed = true;
      tables.close();
    },
  };
}
