// Where a recorded run starts, written once for record, resume and replay: the start position, the limits and
// settings kept with the run, its input and checkpoint read back as the engine's types, and its journal opened.
import type { JsonObject } from '../common/json.js';
import type { RunPosition, RunStart } from '../engine/run-seam.js';
import type { RunOptions } from '../engine/runner.js';
import { createRunState, type RunInput } from '../engine/state.js';
import type { ToolDefinition } from '../model/types.js';
import type { Checkpoint, RunStore, RunSummary } from '../store/types.js';
import { StageloopError } from '../common/stageloop-error.js';
import { effectiveJournal, firstTraceOf, resumeCut, usableCheckpoints } from './effective-journal.js';
import { isRunPosition, isRunState, jsonOf, type JournalEntry, type RecordedCheckpoint } from './journal-entries.js';
import type { HashEvery } from './journal-seam.js';
import { RunJournal, type JournalWriter } from './run-journal.js';

/** The first setup stage, nothing steered, nothing ended. */
export function freshPosition(): RunPosition {
  return { zone: 'setup', iteration: 0, nextStage: 0, steer: null, breakRequested: false, ended: null };
}

/** A run from its beginning: a new state at the first setup stage. */
export function freshStart(runId: string, pipeline: string, input: RunInput): RunStart {
  return { state: createRunState(runId, pipeline, input), position: freshPosition() };
}

/** The run options resume and replay take again from the recording: the finalize limit and the abandon time. */
export function recordedLimits(run: RunSummary): Pick<RunOptions, 'finalizeTimeoutMs' | 'abandonAfterMs'> {
  const { finalizeTimeoutMs, abandonAfterMs } = run.options;
  const limits: Pick<RunOptions, 'finalizeTimeoutMs' | 'abandonAfterMs'> = {};
  if (typeof finalizeTimeoutMs === 'number') limits.finalizeTimeoutMs = finalizeTimeoutMs;
  if (typeof abandonAfterMs === 'number') limits.abandonAfterMs = abandonAfterMs;
  return limits;
}

/** Where the run hashed its state, as it was recorded with. */
export function recordedHashEvery(run: RunSummary): HashEvery {
  return run.options.hashEvery === 'stage' ? 'stage' : 'iteration';
}

/** The tool list the run had (a replay offers the model the same). */
export function recordedTools(run: RunSummary): ToolDefinition[] {
  const tools = run.options.tools;
  const definitions: ToolDefinition[] = [];
  if (!Array.isArray(tools)) return definitions;
  for (const tool of tools) {
    const value: unknown = tool;
    if (isToolDefinition(value)) definitions.push(value);
  }
  return definitions;
}

/** The model's provider and name as the run recorded them (never its key or address), when it had a model. */
export function recordedModel(run: RunSummary): { provider: string; name: string } | undefined {
  const model = run.options.model as { provider?: unknown; name?: unknown } | undefined;
  if (typeof model?.provider !== 'string' || typeof model.name !== 'string') return undefined;
  return { provider: model.provider, name: model.name };
}

function isToolDefinition(value: unknown): value is ToolDefinition {
  return typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string';
}

/** The RunInput as the run header keeps it. */
export function inputJson(input: RunInput): JsonObject {
  return jsonOf(input);
}

export function recordedInput(run: RunSummary): RunInput {
  const input: unknown = run.input;
  if (isRunInput(input)) return input;
  throw new StageloopError(
    'store',
    `run ${run.runId} has no readable input in this store (its task is missing): it cannot be continued or replayed`,
  );
}

function isRunInput(value: unknown): value is RunInput {
  return typeof value === 'object' && value !== null && typeof (value as { task?: unknown }).task === 'string';
}

/** A stored checkpoint read back as the engine's position and state. */
export function recordedCheckpoint(runId: string, checkpoint: Checkpoint): RecordedCheckpoint {
  const { position, state } = checkpoint;
  if (!isRunPosition(position) || !isRunState(state))
    throw new StageloopError(
      'store',
      `the checkpoint at seq ${checkpoint.seq} of run ${runId} cannot be read by this version: resume it with the version that recorded it`,
    );
  return { seq: checkpoint.seq, position, state, stateHash: checkpoint.stateHash, at: checkpoint.at };
}

/** A new run's journal: nothing to serve, every entry recorded from seq 1. */
export function openRecordJournal(writer: JournalWriter): RunJournal {
  return new RunJournal('record', [], 0, 0, writer);
}

/** A recorded run's journal to replay: the whole run as it went, served from the start, nothing written. */
export async function openReplayJournal(
  store: RunStore,
  runId: string,
): Promise<{ entries: JournalEntry[]; journal: RunJournal }> {
  const entries = effectiveJournal(await store.journal(runId));
  return { entries, journal: new RunJournal('replay', entries, 0, 0, undefined) };
}

/**
 * A claimed run's journal to resume, and where it starts: its last usable checkpoint before the point where serving
 * stops (`endedAs`, how the run ended before this claim, decides it), or its beginning.
 */
export async function openResumeJournal(
  store: RunStore,
  run: RunSummary,
  endedAs: string,
  writer: JournalWriter,
): Promise<{ journal: RunJournal; start: RunStart }> {
  const entries = await store.journal(run.runId);
  const effective = effectiveJournal(entries);
  const cut = resumeCut(effective, endedAs);
  const lastServable = cut > 0 ? effective[cut - 1]!.seq : 0;
  const stored = usableCheckpoints(entries, await store.checkpoints(run.runId))
    .filter((candidate) => candidate.seq <= lastServable)
    .pop();
  const checkpoint = stored && recordedCheckpoint(run.runId, stored);
  const from = checkpoint?.seq ?? 0;
  const journal = new RunJournal(
    'resume',
    effective.slice(0, cut).filter((entry) => entry.seq > from),
    run.head,
    from,
    writer,
  );
  primeMessages(journal, effective, from);
  journal.firstTrace = firstTraceOf(entries);
  const start =
    checkpoint === undefined
      ? freshStart(run.runId, run.pipeline, recordedInput(run))
      : { state: checkpoint.state, position: checkpoint.position };
  return { journal, start };
}

/** Requests are stored as a difference from the one before: replay that part of the journal into the log. */
function primeMessages(journal: RunJournal, effective: readonly JournalEntry[], through: number): void {
  for (const entry of effective) {
    if (entry.seq > through) break;
    if (entry.kind === 'model') journal.messages.expand(entry.data.request, entry.stage);
  }
}
