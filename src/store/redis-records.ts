// How a run is kept in Redis: the fields of its hash and the JSON texts of its journal entries and checkpoints. Apart
// from redis-store.ts so that file keeps to the RunStore's methods.
import type { JsonObject } from '../common/json.js';
import { toCheckpointRow, toEntryRow } from './rows.js';
import type {
  Checkpoint,
  Owner,
  RunHeader,
  RunOutcomeRecord,
  RunSummary,
  StoredEntry,
  StoredRunStatus,
} from './types.js';

/** The hash fields that name the owner: deleted when a run is finished or released. */
export const ownerFields = ['ownerId', 'ownerPid', 'ownerHost', 'leaseUntil'];

/** A JSON object text with one member given as JSON text already (the state, an entry's data): never parsed again. */
function withRawMember(head: object, name: string, rawJson: string): string {
  return `${JSON.stringify(head).slice(0, -1)},${JSON.stringify(name)}:${rawJson}}`;
}

/** The run as the port shows it, from its hash. */
export function summaryOf(fields: Record<string, string>): RunSummary {
  const number = (name: string): number => Number(fields[name] ?? 0);
  const orNull = (name: string): string | null => fields[name] ?? null;
  const owner: Owner | null =
    fields.ownerId === undefined ? null : { id: fields.ownerId, pid: number('ownerPid'), host: fields.ownerHost ?? '' };
  return {
    runId: fields.runId!,
    pipeline: fields.pipeline!,
    fingerprint: fields.fingerprint!,
    version: fields.version!,
    input: JSON.parse(fields.input!) as JsonObject,
    options: JSON.parse(fields.options!) as JsonObject,
    createdAt: number('createdAt'),
    status: fields.status as StoredRunStatus,
    updatedAt: number('updatedAt'),
    epoch: number('epoch'),
    owner,
    leaseUntil: fields.leaseUntil === undefined ? null : number('leaseUntil'),
    head: number('head'),
    iterations: number('iterations'),
    tokens: number('tokens'),
    answer: orNull('answer'),
    outcome: fields.outcome === undefined ? null : (JSON.parse(fields.outcome) as RunOutcomeRecord),
  };
}

/** A new run's hash, as field-value pairs: running, owned by `owner`, leased for `leaseMs`. */
export function newRunFields(
  id: number,
  header: RunHeader,
  texts: { input: string; options: string },
  owner: Owner,
  now: number,
  leaseMs: number,
): string[] {
  const fields = {
    id,
    runId: header.runId,
    pipeline: header.pipeline,
    fingerprint: header.fingerprint,
    version: header.version,
    input: texts.input,
    options: texts.options,
    createdAt: header.createdAt,
    status: 'running',
    updatedAt: now,
    epoch: 1,
    ownerId: owner.id,
    ownerPid: owner.pid,
    ownerHost: owner.host,
    leaseUntil: now + leaseMs,
    head: 0,
    iterations: 0,
    tokens: 0,
  };
  return Object.entries(fields).flat().map(String);
}

/** The journal entries of one append as seq, text pairs (the append script's arguments). */
export function entryTexts(runId: string, entries: readonly StoredEntry[]): string[] {
  return entries.flatMap((entry) => {
    const { data, ...head } = toEntryRow(runId, entry);
    return [String(entry.seq), withRawMember(head, 'data', data)];
  });
}

/** A checkpoint's text in the run's checkpoint list. */
export function checkpointText(runId: string, checkpoint: Checkpoint): string {
  const { state, position, ...head } = toCheckpointRow(runId, checkpoint);
  return withRawMember({ ...head, position: JSON.parse(position) as JsonObject }, 'state', state);
}
