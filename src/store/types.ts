// The RunStore port: where a run's header, journal and checkpoints are kept, with an epoch that fences owners.
import { StageloopError } from '../common/stageloop-error.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import type { Zone } from '../engine/stage.js';

/** `running` also covers a run whose process died: its owner's lease tells whether anyone still holds it. */
export type StoredRunStatus = 'running' | 'completed' | 'stopped' | 'failed' | 'cancelled' | 'interrupted';

/** What is known when a run starts. */
export interface RunHeader {
  runId: string;
  pipeline: string;
  /** A hash of the pipeline's stage lists and limits: resume refuses another pipeline unless forced. */
  fingerprint: string;
  /** The stageloop version that recorded the run. */
  version: string;
  /** The RunInput, as JSON. */
  input: JsonObject;
  /** Run options that resume and replay need again (finalize limit, CLI settings); never secrets. */
  options: JsonObject;
  createdAt: number;
}

/** Who holds a run: a random id per process, its pid and host (a dead pid on this host frees the run at once). */
export interface Owner {
  id: string;
  pid: number;
  host: string;
}

/** The right to write to a run: every write names the epoch it was granted, and a newer claim makes it stale. */
export interface Claim {
  runId: string;
  epoch: number;
  owner: Owner;
}

export interface RunOutcomeRecord {
  status: Exclude<StoredRunStatus, 'running'>;
  answer: string | null;
  partial: boolean;
  stopReason: { kind: string; stage: string | null; message: string };
  iterations: number;
  /** Input plus output tokens. */
  tokens: number;
  /** The whole RunResult minus its state, as JSON, for `show`. */
  result: JsonObject;
}

export interface RunSummary extends RunHeader {
  status: StoredRunStatus;
  updatedAt: number;
  epoch: number;
  /** The owner of the current epoch, and until when its lease holds (ms since epoch); null once released. */
  owner: Owner | null;
  leaseUntil: number | null;
  /** seq of the last journal entry (0 when none). */
  head: number;
  iterations: number;
  tokens: number;
  answer: string | null;
  outcome: RunOutcomeRecord | null;
}

/**
 * One journal entry as the store keeps it: the place it was made and its data as JSON. The store reads only `seq`;
 * what each kind's data holds is the durable layer's business (src/durable/journal-entries.ts types it by kind).
 */
export interface StoredEntry {
  /** 1, 2, 3...: contiguous per run; a write whose first seq is not head + 1 is refused. */
  seq: number;
  kind: string;
  zone: Zone;
  iteration: number;
  stage: string | null;
  at: number;
  data: JsonValue;
}

/** Where the runner stood at a checkpoint, as JSON: the store reads only its iteration (for the run's progress). */
export interface StoredPosition {
  iteration: number;
  [field: string]: JsonValue;
}

export interface Checkpoint {
  /** The journal seq this checkpoint follows: entries after it are what happened since. */
  seq: number;
  position: StoredPosition;
  state: JsonObject;
  /** The state's JSON text when the writer has made it already (it hashed it): stored as is, not made again. */
  stateJson?: string;
  /** A hash of the state's JSON, so resume and replay can tell whether they reached the same state. */
  stateHash: string;
  at: number;
}

export interface ClaimOptions {
  /** Take the run even if another live owner holds it (its later writes are then refused). */
  force?: boolean;
  /** How long the lease lasts from now, in ms (default 30 s). */
  leaseMs?: number;
}

export interface AppendOptions {
  /**
   * A checkpoint written in the same transaction; its seq is one of the entries this write appends (the new head, or
   * an earlier one of them: a writer may hold a checkpoint until its next write), or the head when it appends none.
   */
  checkpoint?: Checkpoint;
  /** Renews the owner's lease for this long from now, in ms. */
  leaseMs?: number;
  /** Deletes the run's earlier checkpoints in the same transaction, so full-state checkpoints do not pile up. */
  dropEarlierCheckpoints?: boolean;
  /** The run's progress so far, for `stageloop runs` while it is still running (a checkpoint sets iterations too). */
  progress?: { iterations: number; tokens: number };
}

export interface RunListFilter {
  status?: StoredRunStatus;
  /** At most this many (default: all). */
  limit?: number;
  /** A run id: only runs listed after it (older, or as old and recorded earlier), for the next page. */
  before?: string;
}

/**
 * The port. Every method that writes takes a Claim and fails with staleClaim (code `conflict`) when the run's epoch has moved on,
 * so a stalled old owner can never merge its writes into a newer owner's run. Writes are atomic.
 */
export interface RunStore {
  /** Records a new run and grants epoch 1. Fails with RunExistsError if the id is taken. */
  create(header: RunHeader, owner: Owner, leaseMs: number): Promise<Claim>;
  /**
   * Increments the epoch in one transaction and makes `owner` the holder (status `running` again). Fails with
   * RunBusyError while another owner holds a live lease (unless forced), runNotFound (`not_found`) for an unknown id, and
   * RunFinishedError for a run that already ended `completed` or `stopped` (its record is never reopened).
   * A lease is live while it has not expired and its owner is on another host or its pid is alive on this one.
   */
  claim(runId: string, owner: Owner, options?: ClaimOptions): Promise<{ claim: Claim; run: RunSummary }>;
  /**
   * Appends journal entries (first seq head + 1, contiguous) and optionally a checkpoint, in one transaction; renews
   * the lease when `leaseMs` is given (a long model call needs heartbeats meanwhile, or another process may take over).
   */
  append(claim: Claim, entries: StoredEntry[], options?: AppendOptions): Promise<void>;
  /** Renews the lease without writing anything else. */
  heartbeat(claim: Claim, leaseMs: number): Promise<void>;
  /** Records how the run ended and releases it. */
  finish(claim: Claim, outcome: RunOutcomeRecord): Promise<void>;
  /** Gives the run up without ending it (an interrupted run waiting for a person). */
  release(claim: Claim, status: StoredRunStatus): Promise<void>;
  get(runId: string): Promise<RunSummary | undefined>;
  /** Newest first; `before` pages on after that run (runNotFound when there is no such run). */
  list(filter?: RunListFilter): Promise<RunSummary[]>;
  /** Journal entries with seq > afterSeq (default 0), in order. */
  journal(runId: string, afterSeq?: number): Promise<StoredEntry[]>;
  latestCheckpoint(runId: string): Promise<Checkpoint | undefined>;
  /** Every checkpoint of the run, oldest first (a later checkpoint at the same seq replaces the earlier one). */
  checkpoints(runId: string): Promise<Checkpoint[]>;
  close(): Promise<void>;
  /**
   * A change feed, where the store has one (PostgreSQL's LISTEN/NOTIFY): `onChange` hears the id of every run whose
   * record another process (or this one) changed, from the moment this resolves until the returned stop is called.
   */
  watch?(onChange: (runId: string) => void): Promise<() => Promise<void>>;
  /** Retention, where the store has it (PostgreSQL): see RunPruneOptions. */
  prune?(options: RunPruneOptions): Promise<PruneReport>;
}

export interface RunPruneOptions {
  /** Deletes the checkpoints of ended runs but each one's last (the state show and replay compare against). */
  checkpoints?: boolean;
  /** Deletes ended runs (completed, stopped, failed, cancelled) last changed before this time (ms), whole. */
  endedBefore?: number;
  /** Counts what would go, changing nothing. */
  dryRun?: boolean;
}

export interface PruneReport {
  runs: number;
  checkpoints: number;
}

// The store's refusals are StageloopErrors told apart by `code`; a class is left only where a caller catches it by class.
export function runNotFound(runId: string): StageloopError {
  return new StageloopError('not_found', `no run with id ${runId} in this store`, {
    hint: 'list runs with "stageloop runs"',
  });
}
export class RunExistsError extends StageloopError {
  override readonly name = 'RunExistsError';
  constructor(readonly runId: string) {
    super('conflict', `a run with id ${runId} already exists in this store`);
  }
}
export class RunBusyError extends StageloopError {
  override readonly name = 'RunBusyError';
  constructor(
    readonly runId: string,
    readonly holder: Owner,
  ) {
    super(
      'busy',
      `run ${runId} is being resumed by another process (pid ${holder.pid} on ${holder.host}); wait for it`,
      { hint: 'or pass --force to take it over' },
    );
  }
}
/** A write with a claim whose epoch has moved on (`released`: the run was finished or released at that epoch). */
export function staleClaim(runId: string, epoch: number, currentEpoch: number, released = false): StageloopError {
  return new StageloopError(
    'conflict',
    released
      ? `run ${runId} was already finished or released at epoch ${epoch}; a later write with that claim was refused`
      : `run ${runId} was claimed by another owner (epoch ${currentEpoch}); this owner's write at epoch ${epoch} was refused`,
  );
}
export class RunFinishedError extends StageloopError {
  override readonly name = 'RunFinishedError';
  constructor(
    readonly runId: string,
    readonly status: StoredRunStatus,
  ) {
    super('finished', `run ${runId} already ended (${status}): there is nothing to resume`, {
      hint: `see it with "stageloop show ${runId}"`,
    });
  }
}
export function sequenceMismatch(runId: string, expected: number, got: number): StageloopError {
  return new StageloopError('store', `journal of run ${runId}: expected seq ${expected}, got ${got}`);
}
