// The journal typed by kind, the way run events are: `JournalEntries` maps each kind to its data, `JournalEntry<K>`
// is an entry of kind K, and this file is the one place where typed entries meet the store's JSON, both ways.
import type { JsonObject, JsonValue } from '../common/json.js';
import type { RunPosition } from '../engine/run-seam.js';
import type { PendingDecision } from '../engine/signal.js';
import type { Zone } from '../engine/stage.js';
import type { RunOutcome, RunState } from '../engine/state.js';
import type { ChatResponse, ToolCall } from '../model/types.js';
import type { StoredEntry, StoredPosition } from '../store/types.js';
import type { ToolResult } from '../engine/tool-port.js';
import type { Decision, LimitDecision } from '../engine/decision-types.js';

/** A call's error as recorded: a ModelError keeps its kind, retryable flag and status. */
export interface RecordedError {
  name: string;
  message: string;
  kind?: string;
  retryable?: boolean;
  status?: number;
}

/** Why the run was aborted when a call failed, so a replay can abort at the same point. */
export type RecordedAbort = { deadline: { stage: string; kind: string; message: string } } | { cancel: string | null };

/** A stage's signal as recorded (its pending decisions when it paused the run). */
export interface RecordedSignal {
  type: string;
  kind: string;
  reason: string;
  pending?: readonly PendingDecision[];
}

/**
 * What each kind of entry holds. `model` and `tool` hold a call and its outcome, `clock` and `id` a value drawn
 * through deps, `stage` a stage boundary (its signal and the state hash after it), `decision` a person's decision,
 * `event` a marker (a resume's: the entries after `servedThrough` were left behind), `intent` the calls about to
 * run that may change the world.
 */
export interface JournalEntries {
  /** `request` holds the messages this request adds to the one before in its lane, after `prefix` shared ones. */
  model: { request: JsonObject; response?: ChatResponse; error?: RecordedError; abort?: RecordedAbort };
  tool: { calls: ToolCall[]; results: ToolResult[]; abort?: RecordedAbort };
  /** Written (and on disk) before a batch's calls that may write run: a recording with an intent and no `tool`
   * after it was cut off while they ran, and their outcome is unknown (in doubt). */
  intent: { calls: ToolCall[] };
  clock: number;
  id: string;
  /** `hash`: of the state after the stage, where one was made; `ended`: on entering finalize, how the run ended. */
  stage: { signal: RecordedSignal | null; hash?: string; ended?: RunOutcome | null };
  decision: { type: 'approval' | 'limit'; id?: string; answer: Decision | LimitDecision };
  /** `recoveredBy`: the server or worker that took the run up on its own when its owner was gone. */
  event: { type: 'resumed'; epoch: number; servedThrough: number; recoveredBy?: string };
  /** The root span's context of the run's first trace (a traced run's first entry): resumes link their trace to it. */
  trace: { traceparent: string; tracestate?: string };
}

export type JournalKind = keyof JournalEntries & string;

interface JournalEntryOf<Kind extends JournalKind> {
  seq: number;
  kind: Kind;
  zone: Zone;
  iteration: number;
  stage: string | null;
  at: number;
  data: JournalEntries[Kind];
}

/** An entry of kind K; `JournalEntry` alone is the union over the kinds, discriminated on `kind`. */
export type JournalEntry<Kind extends JournalKind = JournalKind> = { [K in Kind]: JournalEntryOf<K> }[Kind];

export function isKind<Kind extends JournalKind>(entry: { kind: string }, kind: Kind): entry is JournalEntry<Kind> {
  return entry.kind === kind;
}

/**
 * Typed data handed to the store as JSON. Every shape above is plain data (what JSON.stringify keeps is what a
 * replay gets back); TypeScript cannot see that of an interface, which has no index signature, so it is said here once.
 */
export function jsonOf<Data extends object>(data: Data): JsonObject {
  return data as JsonObject;
}

/** The same for a list: the very array, not a copy (the message log compares requests' messages by identity). */
export function jsonListOf<Item extends object>(items: Item[]): JsonValue[] {
  return items as JsonValue[];
}

/** A typed entry as the store keeps it: the very object, its data said to be JSON (see jsonOf). */
export function toStored(entry: Omit<StoredEntry, 'data'> & { data: JournalEntries[JournalKind] }): StoredEntry {
  return entry as StoredEntry;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What an entry's data must look like to be read as its kind: the fields the durable layer relies on. */
const dataChecks: { [Kind in JournalKind]: (data: unknown) => data is JournalEntries[Kind] } = {
  model: (data): data is JournalEntries['model'] =>
    isObject(data) && isObject(data.request) && (isObject(data.response) || isObject(data.error)),
  tool: (data): data is JournalEntries['tool'] =>
    isObject(data) && Array.isArray(data.calls) && Array.isArray(data.results),
  intent: (data): data is JournalEntries['intent'] => isObject(data) && Array.isArray(data.calls),
  clock: (data): data is number => typeof data === 'number',
  id: (data): data is string => typeof data === 'string',
  stage: (data): data is JournalEntries['stage'] => isObject(data) && (data.signal === null || isObject(data.signal)),
  decision: (data): data is JournalEntries['decision'] =>
    isObject(data) && (data.type === 'approval' || data.type === 'limit') && isObject(data.answer),
  event: (data): data is JournalEntries['event'] =>
    isObject(data) && data.type === 'resumed' && typeof data.servedThrough === 'number',
  trace: (data): data is JournalEntries['trace'] => isObject(data) && typeof data.traceparent === 'string',
};

function isJournalKind(kind: string): kind is JournalKind {
  return Object.hasOwn(dataChecks, kind);
}

/** A stored entry read as its kind; undefined when its kind is unknown or its data is not that kind's shape. */
export function entryOf(stored: StoredEntry): JournalEntry | undefined {
  const { kind, data } = stored;
  if (!isJournalKind(kind)) return undefined;
  // The very object, checked: the store's entries are not copied to be typed.
  const check = dataChecks[kind] as (data: unknown) => boolean;
  return check(data) ? (stored as JournalEntry) : undefined;
}

/** The stored entries read as typed ones; an entry this code cannot read (another version's kind) is skipped. */
export function entriesOf(stored: readonly StoredEntry[]): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const entry of stored) {
    const typed = entryOf(entry);
    if (typed !== undefined) entries.push(typed);
  }
  return entries;
}

/** A checkpoint as the durable layer reads it back: the engine's position and state. */
export interface RecordedCheckpoint {
  seq: number;
  position: RunPosition;
  state: RunState;
  stateHash: string;
  at: number;
}

const zones: readonly unknown[] = ['setup', 'iteration', 'finalize'];

export function isRunPosition(value: unknown): value is RunPosition {
  return (
    isObject(value) &&
    zones.includes(value.zone) &&
    typeof value.iteration === 'number' &&
    typeof value.nextStage === 'number' &&
    typeof value.breakRequested === 'boolean'
  );
}

export function isRunState(value: unknown): value is RunState {
  return (
    isObject(value) &&
    typeof value.runId === 'string' &&
    typeof value.iteration === 'number' &&
    Array.isArray(value.messages) &&
    isObject(value.input)
  );
}

export function positionJson(position: RunPosition): StoredPosition {
  return { ...jsonOf(position), iteration: position.iteration };
}
