// One job, one run: starts the run in the shared store, or resumes it from its last checkpoint when another worker
// began it (a dead worker's job comes back after its lock expires), or reports it when it had already ended.
import { StageloopError } from '../common/stageloop-error.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import { resumeRun, runPipeline } from '../durable/durable-run.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { RunResult } from '../engine/run-result.js';
import type { Deps, RunEvent } from '../engine/stage.js';
import { RunBusyError, RunExistsError, RunFinishedError, type RunStore, type RunSummary } from '../store/types.js';
import type { RunJobData } from './run-job.js';

/** What the application makes of a job: the pipeline and the deps (model, tools) to run it with. */
export interface PreparedRun {
  pipeline: Pipeline;
  deps?: Partial<Deps>;
  /** Kept with the run (its recipe), so any worker or command can rebuild it. */
  record?: JsonObject;
  /** Closes what the preparation opened (session store, MCP servers) once the run ends. */
  close?(): Promise<void>;
}

/** `recorded`: the run as the store has it when a worker picks up a begun run (its recipe is there). */
export type PrepareRun = (job: RunJobData, recorded?: RunSummary) => PreparedRun | Promise<PreparedRun>;

/** What a completed job returns (BullMQ keeps it as the job's return value; `submit` prints it). */
export interface RunJobResult extends JsonObject {
  runId: string;
  status: string;
  answer: string | null;
  iterations: number;
  tokens: number;
  resumed: boolean;
  // And `output`, the typed output of a run with an output schema (as `stageloop run --json` has it).
}

export interface ProcessRunOptions {
  store: RunStore;
  prepare: PrepareRun;
  leaseMs: number;
  /** Told about the run's events (the worker forwards them as job progress). */
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
}

/** The run was taken over by another owner while this one ran: this worker must not report it at all. */
export class RunTakenOverError extends StageloopError {
  override readonly name = 'RunTakenOverError';
  constructor(message: string) {
    super('conflict', message);
  }
}

type Finished = {
  runId: string;
  status: string;
  answer: string | null;
  iterations: number;
  tokens: number;
  output?: JsonValue;
  outcome?: { result: JsonObject } | null;
};
function resultOf(run: Finished, resumed: boolean): RunJobResult {
  // A run read back from the store keeps its typed output in the recorded result.
  const output = run.output ?? run.outcome?.result.output;
  return {
    runId: run.runId,
    status: run.status,
    answer: run.answer,
    iterations: run.iterations,
    tokens: run.tokens,
    resumed,
    ...(output !== undefined && { output }),
  };
}

const ended = (run: RunSummary | undefined): boolean => run?.status === 'completed' || run?.status === 'stopped';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A lease held by a paused (or just-dead remote) worker runs out by itself: wait for it, a bounded number of times. */
async function resumeWhenFree(
  store: RunStore,
  runId: string,
  prepared: PreparedRun,
  options: ProcessRunOptions,
  deps: Partial<Deps>,
): Promise<RunResult | RunSummary> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await resumeRun(store, runId, {
        pipeline: prepared.pipeline,
        deps,
        leaseMs: options.leaseMs,
        ...(options.signal && { signal: options.signal }),
      });
    } catch (error) {
      if (!(error instanceof RunBusyError) && !(error instanceof RunFinishedError)) throw error;
      const run = await store.get(runId);
      // Its holder finished it meanwhile (this job came back while that one still ran): report, do not rerun.
      if (ended(run)) return run!;
      if (attempt >= 20) throw error;
      await sleep(Math.min(Math.max(50, (run?.leaseUntil ?? 0) - Date.now() + 25), options.leaseMs));
    }
  }
}

/** Runs or resumes the job's run to its end and returns its summary; rejects when it could not be recorded. */
export async function processRun(job: RunJobData, options: ProcessRunOptions): Promise<RunJobResult> {
  const { store } = options;
  const known = await store.get(job.runId);
  // Completed before (its worker died between finishing the run and completing the job): nothing runs again.
  if (ended(known)) return resultOf(known!, false);
  const prepared = await options.prepare(job, known);
  try {
    return await runPrepared(job, options, prepared, known);
  } finally {
    await prepared.close?.();
  }
}

async function runPrepared(
  job: RunJobData,
  options: ProcessRunOptions,
  prepared: PreparedRun,
  known: RunSummary | undefined,
): Promise<RunJobResult> {
  const { store } = options;
  const deps: Partial<Deps> = { ...prepared.deps, ...(options.onEvent && { onEvent: options.onEvent }) };
  let result: RunResult;
  let resumed = known !== undefined;
  if (known === undefined) {
    try {
      result = await runPipeline(prepared.pipeline, job.input, {
        store,
        leaseMs: options.leaseMs,
        runId: job.runId,
        deps,
        ...(prepared.record && { record: prepared.record }),
        ...(options.signal && { signal: options.signal }),
      });
    } catch (error) {
      if (!(error instanceof RunExistsError)) throw error;
      // Another worker created it between our look and our create: continue it like any begun run.
      const resumedResult = await resumeWhenFree(store, job.runId, prepared, options, deps);
      if (!('usage' in resumedResult)) return resultOf(resumedResult, true);
      resumed = true;
      result = resumedResult;
    }
  } else {
    const resumedResult = await resumeWhenFree(store, job.runId, prepared, options, deps);
    if (!('usage' in resumedResult)) return resultOf(resumedResult, true);
    result = resumedResult;
  }
  if (result.status === 'failed' && result.stopReason.kind === 'store') {
    // The store's staleClaim refusal, as the run's stop reason words it: a newer owner fenced this one off.
    if (/was claimed by another owner|was already finished or released/.test(result.stopReason.message))
      throw new RunTakenOverError(`run ${job.runId} was taken over by another worker: ${result.stopReason.message}`);
    // A write lost with its connection (this process was stopped, and the server ended its session) says nothing of
    // epochs; the record does: ended means a newer owner finished the run (or this one's last write was kept after all).
    if (ended(await store.get(job.runId).catch(() => undefined)))
      throw new RunTakenOverError(
        `run ${job.runId} has ended in the store under another owner: ${result.stopReason.message}`,
      );
    throw new Error(`run ${job.runId} could not be recorded: ${result.stopReason.message}`);
  }
  return resultOf({ ...result, tokens: result.usage.inputTokens + result.usage.outputTokens }, resumed);
}
