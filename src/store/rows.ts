// The flat rows both stores keep (JSON held as text, so stored data can never alias a caller's objects), and the
// conversions between them and the port's types.
import type { JsonObject, JsonValue } from '../common/json.js';
import { messageOf } from '../common/error-message.js';
import type {
  Checkpoint,
  Owner,
  RunHeader,
  RunOutcomeRecord,
  RunSummary,
  StoredEntry,
  StoredPosition,
  StoredRunStatus,
} from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

/** The columns a write reads and changes; the header's (input, options...) are written once and never read by one. */
export interface WritableRow {
  /** Insertion order: breaks ties between runs created in the same millisecond. */
  id: number;
  runId: string;
  status: StoredRunStatus;
  updatedAt: number;
  epoch: number;
  ownerId: string | null;
  ownerPid: number | null;
  ownerHost: string | null;
  leaseUntil: number | null;
  head: number;
  iterations: number;
  tokens: number;
  answer: string | null;
  outcome: string | null;
}

export interface RunRow extends WritableRow {
  pipeline: string;
  fingerprint: string;
  version: string;
  input: string;
  options: string;
  createdAt: number;
}

export interface EntryRow {
  seq: number;
  kind: string;
  zone: StoredEntry['zone'];
  iteration: number;
  stage: string | null;
  at: number;
  data: string;
}

export interface CheckpointRow {
  seq: number;
  position: string;
  state: string;
  stateHash: string;
  at: number;
}

/** JSON text of a value the caller promised is JSON; a cycle or a BigInt gets one line naming what it was. */
export function jsonText(what: string, value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    throw new StageloopError('store', `${what} is not JSON (${messageOf(error)}): only plain JSON can be stored`);
  }
}

export function newRunRow(id: number, header: RunHeader, owner: Owner, now: number, leaseMs: number): RunRow {
  return {
    id,
    runId: header.runId,
    pipeline: header.pipeline,
    fingerprint: header.fingerprint,
    version: header.version,
    input: jsonText(`the input of run ${header.runId}`, header.input),
    options: jsonText(`the options of run ${header.runId}`, header.options),
    createdAt: header.createdAt,
    status: 'running',
    updatedAt: now,
    epoch: 1,
    ...ownerColumns(owner),
    leaseUntil: now + leaseMs,
    head: 0,
    iterations: 0,
    tokens: 0,
    answer: null,
    outcome: null,
  };
}

export function ownerColumns(owner: Owner | null): Pick<RunRow, 'ownerId' | 'ownerPid' | 'ownerHost'> {
  return { ownerId: owner?.id ?? null, ownerPid: owner?.pid ?? null, ownerHost: owner?.host ?? null };
}

export function ownerOf(row: WritableRow): Owner | null {
  return row.ownerId === null ? null : { id: row.ownerId, pid: row.ownerPid ?? 0, host: row.ownerHost ?? '' };
}

export function toSummary(row: RunRow): RunSummary {
  return {
    runId: row.runId,
    pipeline: row.pipeline,
    fingerprint: row.fingerprint,
    version: row.version,
    input: JSON.parse(row.input) as JsonObject,
    options: JSON.parse(row.options) as JsonObject,
    createdAt: row.createdAt,
    status: row.status,
    updatedAt: row.updatedAt,
    epoch: row.epoch,
    owner: ownerOf(row),
    leaseUntil: row.leaseUntil,
    head: row.head,
    iterations: row.iterations,
    tokens: row.tokens,
    answer: row.answer,
    outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as RunOutcomeRecord),
  };
}

export function toEntryRow(runId: string, entry: StoredEntry): EntryRow {
  const data = jsonText(`journal entry ${entry.seq} of run ${runId}`, entry.data);
  return {
    seq: entry.seq,
    kind: entry.kind,
    zone: entry.zone,
    iteration: entry.iteration,
    stage: entry.stage,
    at: entry.at,
    data,
  };
}

export function toEntry(row: EntryRow): StoredEntry {
  return {
    seq: row.seq,
    kind: row.kind,
    zone: row.zone,
    iteration: row.iteration,
    stage: row.stage,
    at: row.at,
    data: JSON.parse(row.data) as JsonValue,
  };
}

export function toCheckpointRow(runId: string, checkpoint: Checkpoint): CheckpointRow {
  const what = `the checkpoint at seq ${checkpoint.seq} of run ${runId}`;
  // Text given is kept as is: the writer made it to hash the state, and stringifying it again would double the cost.
  const state = checkpoint.stateJson ?? jsonText(what, checkpoint.state);
  return {
    seq: checkpoint.seq,
    position: jsonText(what, checkpoint.position),
    state,
    stateHash: checkpoint.stateHash,
    at: checkpoint.at,
  };
}

export function toCheckpoint(row: CheckpointRow): Checkpoint {
  return {
    seq: row.seq,
    position: JSON.parse(row.position) as StoredPosition,
    state: JSON.parse(row.state) as JsonObject,
    stateHash: row.stateHash,
    at: row.at,
  };
}
