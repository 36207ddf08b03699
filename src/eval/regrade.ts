// Grading recorded runs again (after a grader change) with no model call: each run comes back from its recording.
import type { ChatModel } from '../model/types.js';
import type { RunResult } from '../engine/run-result.js';
import type { Dataset } from './dataset.js';
import { gradeRun } from './grade.js';
import { gradersFor, JudgePool } from './graders/spec.js';
import type { CalledTool, Grader } from './graders/types.js';
import { subjectOf } from './subject.js';
import { evalResult } from './summary.js';
import type { CaseRun, EvalResult } from './types.js';

export interface RegradeOptions {
  evalId: string;
  dataset: Dataset;
  variants: readonly string[];
  repeats: number;
  /** The runs as the eval graded them (their ids, latency and cost are kept). */
  runs: readonly CaseRun[];
  graders?: readonly Grader[];
  judgeModel?: ChatModel;
  /** The recorded run, replayed from its journal, and the tool calls it made. */
  load(run: CaseRun): Promise<{ result: RunResult; toolCalls: CalledTool[] }>;
}

export async function regrade(options: RegradeOptions): Promise<EvalResult> {
  const judges = new JudgePool(options.judgeModel);
  const shared = [...(options.dataset.graders ?? []), ...(options.graders ?? [])];
  const cases = new Map(
    options.dataset.cases.map((evalCase) => [evalCase.id, { evalCase, graders: gradersFor(evalCase, shared, judges) }]),
  );
  const graded: CaseRun[] = [];
  for (const run of options.runs) {
    const found = cases.get(run.id);
    if (found === undefined || !options.variants.includes(run.variant)) continue;
    const { result, toolCalls } = await options.load(run);
    const subject = subjectOf(found.evalCase, result, toolCalls, run.latencyMs);
    const grades = await gradeRun(subject, found.graders);
    if (grades !== undefined) graded.push({ ...run, ...grades, answer: subject.answer, toolCalls });
  }
  const complete = graded.length === options.dataset.cases.length * options.variants.length * options.repeats;
  return evalResult(
    options.evalId,
    options.dataset.name,
    options.dataset.cases.map((evalCase) => evalCase.id),
    options.variants,
    graded,
    complete,
  );
}
