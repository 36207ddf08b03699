// The graders, for evaluate() and for use in tests of your own (vitest): each returns a score in [0, 1] and a reason.
export { contains, exact, normalized, normalizeText, regex } from './text.js';
export { numberWithin, numbersIn, type NumberOptions } from './number.js';
export { jsonSchemaValid, jsonSubset } from './json.js';
export { maxTime, maxTokens, stopReason, toolCalled, toolNotCalled } from './run-facts.js';
export { custom, type GradeFunction } from './custom.js';
export { judge, type JudgeGraderOptions } from './judge.js';
export { graderOf, gradersFor, graderTypes, JudgePool } from './spec.js';
export type {
  CalledTool,
  EvalCase,
  Grade,
  GradeContext,
  Grader,
  GradeRecord,
  GradeSubject,
  GraderSpec,
} from './types.js';
