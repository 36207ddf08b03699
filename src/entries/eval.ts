/** @module stageloop/eval */
// 'stageloop/eval': datasets, graders (also for your own vitest tests), evaluate() over variants, baseline comparison.
export { evaluate, newEvalId, type EvalVariant, type EvaluateOptions, type EvalProgress } from '../eval/evaluate.js';
export { loadDataset, parseJsonl, checkCases, type Dataset } from '../eval/dataset.js';
export * as graders from '../eval/graders/index.js';
export type { EvalCase, Grade, Grader, GradeSubject, GraderSpec, GradeRecord } from '../eval/graders/index.js';
export type { CaseResult, CaseRun, EvalResult, VariantSummary, Disagreement } from '../eval/types.js';
