// Replay: runs a recorded run again with every model and tool call served from its journal (no network, no tool
// side effects), and says whether it went the same way or where it first went another.
import { DeadlineReached } from '../engine/run-abort.js';
import type { Pipeline } from '../engine/pipeline.js';
import { runPipeline as runUnrecorded, type RunResult } from '../engine/runner.js';
import type { RunStart } from '../engine/run-seam.js';
import type { Deps } from '../engine/stage.js';
import { runNotFound, type RunStore, type RunSummary } from '../store/types.js';
import { place, type Divergence } from './divergence.js';
import { stateDigest } from './hashing.js';
import { jsonOf, type RecordedAbort } from './journal-entries.js';
import { JournalSeam } from './journal-seam.js';
import { freshStart, openReplayJournal, recordedInput, recordedLimits, recordedModel, recordedTools } from './start.js';

export interface ReplayOptions {
  /** The pipeline to replay with: the recorded one, or a changed one to see whether it still does the same. */
  pipeline: Pipeline;
  /** Real ports are never called; a ToolBox given here only supplies the tool list (else the recorded one is used). */
  deps?: Partial<Omit<Deps, 'model'>>;
}

export interface ReplayReport {
  runId: string;
  identical: boolean;
  /** The first place the replay went another way, when it did. */
  divergence?: Divergence;
  /** The replayed run's result. */
  result: RunResult;
  recorded: { status: string | null; stateHash: string | null };
  replayed: { status: string; stateHash: string };
}

export async function replayRun(store: RunStore, runId: string, options: ReplayOptions): Promise<ReplayReport> {
  const run = await store.get(runId);
  if (run === undefined) throw runNotFound(runId);
  const { entries, journal } = await openReplayJournal(store, runId);
  const controller = new AbortController();
  const model = recordedModel(run);
  const seam = new JournalSeam(journal, options.pipeline, undefined, {
    definitions: recordedTools(run),
    ...(model !== undefined && { model }),
    onRecordedAbort: (abort) => controller.abort(abortReason(abort)),
  });
  const input = recordedInput(run);
  const replayFrom = (start: RunStart) =>
    runUnrecorded(options.pipeline, input, {
      ...recordedLimits(run),
      deps: { ...options.deps, tracer: undefined, onEvent: undefined },
      signal: controller.signal,
      seam,
      start,
    });
  let result = await replayFrom(freshStart(runId, run.pipeline, input));
  // A run paused for a decision and resumed goes on in the journal: continue from the pause as the resume did.
  while (result.status === 'interrupted' && seam.pausedAt !== undefined && journal.peek() !== undefined) {
    result = await replayFrom({ state: result.state, position: seam.pausedAt });
  }
  const replayedHash = stateDigest(result.state).hash;
  const lastStage = entries.findLast((entry) => entry.kind === 'stage');
  const recordedHash = (lastStage?.kind === 'stage' ? lastStage.data.hash : undefined) ?? null;
  let divergence = journal.divergence;
  const left = journal.peek();
  if (divergence === undefined && left !== undefined) {
    divergence = {
      zone: left.zone,
      iteration: left.iteration,
      stage: left.stage,
      what: 'missing_call',
      message: `the replay ended where the recording goes on with ${left.kind === 'stage' ? 'the end of' : `a ${left.kind} call in`} ${place(left)}`,
      recorded: typeof left.data === 'object' ? jsonOf(left.data) : left.data,
      replayed: null,
    };
  }
  const report: ReplayReport = {
    runId,
    identical: divergence === undefined && replayedHash === recordedHash && sameOutcome(run, result),
    result,
    recorded: { status: run.outcome?.status ?? null, stateHash: recordedHash },
    replayed: { status: result.status, stateHash: replayedHash },
  };
  if (divergence !== undefined) report.divergence = divergence;
  return report;
}

function sameOutcome(run: RunSummary, result: RunResult): boolean {
  const outcome = run.outcome;
  if (outcome === null) return true;
  return (
    outcome.status === result.status &&
    outcome.answer === result.answer &&
    outcome.stopReason.kind === result.stopReason.kind
  );
}

function abortReason(abort: RecordedAbort): unknown {
  if ('deadline' in abort)
    return new DeadlineReached(abort.deadline.stage, abort.deadline.kind, abort.deadline.message);
  return abort.cancel === null ? undefined : new Error(abort.cancel);
}
