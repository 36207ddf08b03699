/** @module stageloop/eval */
// 'stageloop/eval': datasets, graders (also for your own vitest tests), runEval() over variants, baseline comparison.
import { evaluate as runEvalFunction, type EvaluateOptions as RunEvalOptionsType } from '../eval/evaluate.js';

export {
  evaluate as runEval,
  newEvalId,
  type EvalVariant,
  type EvaluateOptions as RunEvalOptions,
  type EvalProgress,
} from '../eval/evaluate.js';

/**
 * The eval runner's old name, which the loop stage `evaluate` in `stageloop/stages` also has.
 * @deprecated Renamed {@link runEval}; this alias is removed in the next release.
 */
export const evaluate: typeof runEvalFunction = runEvalFunction;
export { loadDataset, parseJsonl, checkCases, type Dataset } from '../eval/dataset.js';
export { openDataset, caseStreamOf, type CaseStream } from '../eval/case-stream.js';
export * as graders from '../eval/graders/index.js';
export type { EvalCase, Grade, Grader, GradeSubject, GraderSpec, GradeRecord } from '../eval/graders/index.js';
export type { CaseResult, CaseRun, EvalResult, VariantSummary, Disagreement } from '../eval/types.js';

/** @deprecated Renamed {@link RunEvalOptions} (the loop stage's options in `stageloop/stages` are `EvaluateOptions`). */
export type EvaluateOptions = RunEvalOptionsType;
