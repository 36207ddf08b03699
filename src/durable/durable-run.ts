// Recorded runs: runPipeline with a store records the run as it goes; resumeRun continues one from its last
// checkpoint, serving every call the journal already holds, so nothing that completed runs twice.
import type { JsonObject } from '../common/json.js';
import { packageVersion } from '../common/version.js';
import { randomIds, systemClock } from '../engine/defaults.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { RunStart } from '../engine/run-seam.js';
import { runPipeline as runUnrecorded, type RunOptions, type RunResult } from '../engine/runner.js';
import type { Deps } from '../engine/stage.js';
import type { RunInput } from '../engine/state.js';
import { makeOwner } from '../store/location.js';
import type { RunStore } from '../store/types.js';
import { StageloopError } from '../common/stageloop-error.js';
import { effectiveJournal } from './effective-journal.js';
import { pipelineFingerprint } from './hashing.js';
import { definitionsJson } from './journal-codec.js';
import { JournalSeam, type HashEvery } from './journal-seam.js';
import { checkDecisions, type Decision } from './decisions.js';
import type { RunJournal } from './run-journal.js';
import {
  freshStart,
  inputJson,
  openRecordJournal,
  openResumeJournal,
  recordedHashEvery,
  recordedInput,
  recordedLimits,
} from './start.js';

export interface RecordOptions {
  /** Where the run is recorded; without one the run lives only in memory, as before. */
  store?: RunStore;
  /** How long a claim holds without renewal, in ms (default 30,000): a stalled owner loses the run after it. */
  leaseMs?: number;
  /** JSON the caller wants kept with the run (the CLI keeps its settings, to rebuild the pipeline on resume). */
  record?: JsonObject;
  /** Where the state is hashed: after every stage, or only where a checkpoint is taken (default, cheaper). */
  hashEvery?: HashEvery;
  /** The run's id (a queued job's, a child run's); default: the first id deps.ids makes. */
  runId?: string;
}

export type DurableRunOptions = Omit<RunOptions, 'seam' | 'start'> & RecordOptions;

export interface ResumeOptions extends Omit<RunOptions, 'seam' | 'start'> {
  pipeline: Pipeline;
  /** Resume although the pipeline's shape differs from the recorded one. */
  force?: boolean;
  /** Take the run although another live process holds it (its later writes are then refused). */
  takeOver?: boolean;
  leaseMs?: number;
  /** For an interrupted run: decisions by pending id; an undecided call asks deps.approve, or pauses the run again. */
  decisions?: Readonly<Record<string, Decision>>;
  /** Who takes the run up on its own (`stageloop serve` or a worker recovering it), kept in the journal. */
  recoveredBy?: string;
}

const defaultLeaseMs = 30_000;

/** Runs a pipeline; with `store`, records it so it can be resumed, shown and replayed. Resolves for every outcome. */
export function runPipeline(pipeline: Pipeline, input: RunInput, options: DurableRunOptions = {}): Promise<RunResult> {
  // Without a store this is the engine's own call: no copy of the options, nothing added to the run.
  if (options.store === undefined) return runUnrecorded(pipeline, input, options);
  const { store, leaseMs = defaultLeaseMs, record, hashEvery = 'iteration', runId, ...runOptions } = options;
  return recordRun(store, pipeline, input, runOptions, leaseMs, { ...record, hashEvery }, hashEvery, runId);
}

async function recordRun(
  store: RunStore,
  pipeline: Pipeline,
  input: RunInput,
  options: RunOptions,
  leaseMs: number,
  record: JsonObject,
  hashEvery: HashEvery,
  runId: string | undefined,
): Promise<RunResult> {
  const deps: Deps = { clock: systemClock, ids: randomIds, ...options.deps };
  if (typeof input !== 'object' || input === null || typeof input.task !== 'string')
    return runUnrecorded(pipeline, input, options);
  const start = freshStart(runId ?? deps.ids.newId(), pipeline.name, input);
  const header = {
    runId: start.state.runId,
    pipeline: pipeline.name,
    fingerprint: pipelineFingerprint(pipeline),
    version: packageVersion(),
    input: inputJson(start.state.input),
    options: { ...record, ...runSettings(options, deps) },
    createdAt: Date.now(),
  };
  const claim = await store.create(header, makeOwner(), leaseMs);
  const writer = { store, claim, leaseMs };
  const seam = new JournalSeam(openRecordJournal(writer), pipeline, writer, {}, hashEvery);
  return runUnrecorded(pipeline, input, { ...options, deps, seam, start });
}

/** What replay needs again: limits, the tool list and the model's name (never its key or address). */
function runSettings(options: RunOptions, deps: Deps): JsonObject {
  const settings: JsonObject = { tools: definitionsJson(deps.tools?.definitions() ?? []) };
  if (options.finalizeTimeoutMs !== undefined) settings.finalizeTimeoutMs = options.finalizeTimeoutMs;
  if (options.abandonAfterMs !== undefined) settings.abandonAfterMs = options.abandonAfterMs;
  if (deps.model !== undefined) settings.model = { provider: deps.model.provider, name: deps.model.modelName };
  return settings;
}

/**
 * Continues a run whose process died, or that was cancelled or failed, from its last checkpoint. Rejects with a
 * StageloopError when it cannot: unknown run (`not_found`), already ended (`finished`), held by another process (`busy`), or
 * another pipeline (`pipeline_mismatch`).
 */
export async function resumeRun(store: RunStore, runId: string, options: ResumeOptions): Promise<RunResult> {
  const {
    pipeline,
    force = false,
    takeOver = false,
    leaseMs = defaultLeaseMs,
    decisions,
    recoveredBy,
    ...runOptions
  } = options;
  // How the run ended before this claim (claiming makes it running again) decides where serving stops.
  const before = await store.get(runId);
  const endedAs = before?.status ?? 'running';
  // Decisions are checked before the claim, so a wrong one changes nothing.
  if (decisions !== undefined && before !== undefined) {
    const given = checkDecisions(runId, endedAs, effectiveJournal(await store.journal(runId)), decisions);
    runOptions.deps = { ...runOptions.deps, approve: decideFrom(given, runOptions.deps?.approve) };
  }
  const { claim, run } = await store.claim(runId, makeOwner(), { force: takeOver, leaseMs });
  const writer = { store, claim, leaseMs, ...(recoveredBy !== undefined && { recoveredBy }) };
  let opened: { journal: RunJournal; start: RunStart };
  let input: RunInput;
  try {
    if (!force && run.fingerprint !== pipelineFingerprint(pipeline))
      throw new StageloopError(
        'pipeline_mismatch',
        `run ${runId} was recorded with pipeline "${run.pipeline}" of another shape than "${pipeline.name}" has now`,
        { hint: 'pass --force to resume it anyway' },
      );
    input = recordedInput(run);
    opened = await openResumeJournal(store, run, endedAs, writer);
  } catch (error) {
    await store.release(claim, endedAs).catch(() => undefined);
    throw error;
  }
  const seam = new JournalSeam(opened.journal, pipeline, writer, {}, recordedHashEvery(run));
  return runUnrecorded(pipeline, input, { ...recordedLimits(run), ...runOptions, seam, start: opened.start });
}

/** Answers pending calls from the decisions given (each once), and any other call as the caller's own decider would. */
function decideFrom(given: Map<string, Decision>, fallback: Deps['approve']): NonNullable<Deps['approve']> {
  return async (request) => {
    const decision = given.get(request.id);
    if (decision === undefined) return fallback?.(request);
    given.delete(request.id);
    return decision;
  };
}
