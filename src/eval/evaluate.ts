// evaluate(): every case × variant × repeat, at most `concurrency` runs at once, each recorded with the eval's id and graded.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../common/json.js';
import { StageloopError } from '../common/stageloop-error.js';
import { runPipeline } from '../durable/durable-run.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { Deps } from '../engine/stage.js';
import type { Usage } from '../engine/state.js';
import type { ChatModel } from '../model/types.js';
import type { RunStore } from '../store/types.js';
import type { Dataset } from './dataset.js';
import { caseStreamOf, type CaseStream } from './case-stream.js';
import { gradeRun } from './grade.js';
import { gradersFor, JudgePool } from './graders/spec.js';
import type { CalledTool, EvalCase, Grader } from './graders/types.js';
import { noteToolCalls, subjectOf } from './subject.js';
import { evalResult } from './summary.js';
import { runKey, type CaseRun, type EvalResult } from './types.js';

export interface EvalVariant {
  name: string;
  pipeline: Pipeline;
  /** The run's ports: model, tools, clock... (the eval notes tool calls on the way). */
  deps?: Partial<Deps>;
  /** JSON kept with each recorded run (the CLI keeps its settings, so show, replay and resume rebuild the run). */
  record?: JsonObject;
  /** The cost in USD of a run's usage; 0 when not given. */
  cost?: (usage: Usage) => number;
}

export interface EvalProgress {
  done: number;
  total: number;
  passed: number;
}

export interface EvaluateOptions {
  /** The cases; a CaseStream (openDataset) is read one case at a time as runs start, never held whole. */
  dataset: Dataset | CaseStream | readonly EvalCase[];
  variants: readonly EvalVariant[];
  /** Graders for every case, after each case's own. */
  graders?: readonly Grader[];
  /** Runs at once (default 4). */
  concurrency?: number;
  /** Runs per case × variant (default 1); a case passes when every repeat passed. */
  repeats?: number;
  /** Where every run is recorded, with `{ eval: { id, case, variant, repeat } }` in its options. */
  store?: RunStore;
  evalId?: string;
  /** The model of `judge` graders in the dataset. */
  judgeModel?: ChatModel;
  /** Stops starting runs and cancels those in flight; finished runs stay in the result (complete: false). */
  signal?: AbortSignal;
  /** How long one grader may take on one run (default 60 s): past it the grade fails, naming the grader. */
  graderTimeLimitMs?: number;
  /** Runs an earlier, interrupted eval finished: kept, not run again. */
  finished?: readonly CaseRun[];
  /** Each run as soon as it is graded (a ledger, a progress line). */
  onRun?: (run: CaseRun, progress: EvalProgress) => void | Promise<void>;
}

export const newEvalId = (): string => `eval-${randomBytes(5).toString('hex')}`;

interface Job {
  evalCase: EvalCase;
  variant: EvalVariant;
  repeat: number;
  graders: Grader[];
}

function checkOptions(options: EvaluateOptions): { concurrency: number; repeats: number } {
  const concurrency = options.concurrency ?? 4;
  const repeats = options.repeats ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new StageloopError('usage', `concurrency must be a whole number >= 1, got ${concurrency}`);
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new StageloopError('usage', `repeats must be a whole number >= 1, got ${repeats}`);
  if (options.variants.length === 0) throw new StageloopError('usage', 'evaluate needs at least one variant');
  const names = options.variants.map((variant) => variant.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined)
    throw new StageloopError('usage', `variant "${twice}" is given twice: give each variant its own name`);
  return { concurrency, repeats };
}

async function runJob(job: Job, evalId: string, options: EvaluateOptions): Promise<CaseRun | undefined> {
  const { evalCase, variant, repeat } = job;
  const toolCalls: CalledTool[] = [];
  const deps: Partial<Deps> = { ...variant.deps };
  if (deps.tools !== undefined) deps.tools = noteToolCalls(deps.tools, toolCalls);
  const record = { ...variant.record, eval: { id: evalId, case: evalCase.id, variant: variant.name, repeat } };
  const input = { task: evalCase.task, ...(evalCase.input !== undefined && { options: evalCase.input }) };
  const started = performance.now();
  const result = await runPipeline(variant.pipeline, input, {
    deps,
    ...(options.signal && { signal: options.signal }),
    ...(options.store && { store: options.store, record }),
  });
  const latencyMs = performance.now() - started;
  // A run the eval's own cancel stopped is not finished: --resume runs it again.
  if (options.signal?.aborted && result.status === 'cancelled') return undefined;
  const subject = subjectOf(evalCase, result, toolCalls, latencyMs);
  const graded = await gradeRun(subject, job.graders, {
    ...(options.signal && { signal: options.signal }),
    ...(options.graderTimeLimitMs !== undefined && { timeLimitMs: options.graderTimeLimitMs }),
  });
  // Grading the eval's own cancel cut short is not finished either.
  if (graded === undefined) return undefined;
  return {
    id: evalCase.id,
    variant: variant.name,
    repeat,
    runId: result.runId,
    ...graded,
    answer: subject.answer,
    status: result.status,
    stopReason: result.stopReason.kind,
    tokens: subject.tokens,
    costUsd: variant.cost?.(result.usage) ?? 0,
    latencyMs: Math.round(latencyMs * 10) / 10,
    toolCalls,
  };
}

/** Runs the eval; resolves with every finished run graded (also when interrupted), rejects only on a mistake in its options. */
export async function evaluate(options: EvaluateOptions): Promise<EvalResult> {
  const { concurrency, repeats } = checkOptions(options);
  const dataset = caseStreamOf(options.dataset);
  const evalId = options.evalId ?? newEvalId();
  const judges = new JudgePool(options.judgeModel);
  const shared = [...(dataset.graders ?? []), ...(options.graders ?? [])];
  // Graders are made once before any run, so a mistake in one costs no model call; each job makes its own again
  // rather than every case's being kept for the whole eval (a large dataset would hold them all at once).
  for await (const evalCase of dataset.cases()) gradersFor(evalCase, shared, judges);
  const finished = [...(options.finished ?? [])];
  const done = new Set(finished.map(runKey));
  // Cases are read as runs start: at most `concurrency` jobs (and the case being read) are held at once.
  async function* pendingJobs(): AsyncGenerator<Job> {
    for await (const evalCase of dataset.cases()) {
      for (const variant of options.variants) {
        for (let repeat = 0; repeat < repeats; repeat++) {
          if (!done.has(runKey({ id: evalCase.id, variant: variant.name, repeat })))
            yield { evalCase, variant, repeat, graders: gradersFor(evalCase, shared, judges) };
        }
      }
    }
  }
  const jobs = pendingJobs();
  const total = dataset.ids.length * options.variants.length * repeats;
  const progress: EvalProgress = { done: finished.length, total, passed: finished.filter((run) => run.pass).length };
  const worker = async () => {
    while (!options.signal?.aborted) {
      const next = await jobs.next();
      if (next.done) return;
      const run = await runJob(next.value, evalId, options);
      if (run === undefined) continue;
      finished.push(run);
      progress.done += 1;
      if (run.pass) progress.passed += 1;
      await options.onRun?.(run, { ...progress });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total - finished.length) }, worker));
  // An eval stopped early closes the file its cases come from.
  await jobs.return(undefined);
  const complete = finished.length === total;
  return evalResult(
    evalId,
    dataset.name,
    [...dataset.ids],
    options.variants.map((variant) => variant.name),
    finished,
    complete,
  );
}
