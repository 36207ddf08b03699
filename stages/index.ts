/** @module stageloop/stages */
// The built-in stages: each a factory closing over its options and returning a named, stateless Stage.
export { context, type ContextOptions, type ContextSlot } from './loop/context.js';
export {
  plan,
  planSchema,
  stepStatuses,
  type PlanOptions,
  type PlanSlot,
  type PlanStep,
  type StepResult,
  type StepStatus,
} from './plan/plan.js';
export { think, type ThinkOptions, type ThinkSlot } from './loop/think.js';
export { act, type ActOptions, type ActSlot } from './loop/act.js';
export { handoffStage, withHandoffs } from './loop/handoff.js';
export { observe, type ObserveOptions, type ObserveSlot, type ObservedResult } from './loop/observe.js';
export {
  evaluate,
  type EvaluateOptions,
  type EvaluateSlot,
  type Verdict,
  type VerdictRecord,
  type AnswerJudgement,
  type AnswerJudgeHook,
} from './loop/evaluate.js';
export { answerJudge, type AnswerJudgeOptions } from './loop/answer-judge.js';
export { replan, replanSchema, type ReplanOptions, type ReplanSlot, type ReplanDecision } from './plan/replan.js';
export { summarize, type SummarizeOptions, type SummarizeSlot, type SummaryPath } from './loop/summarize.js';
export { renderMessages, renderSystemPrompt, defaultInstructions } from './shared/prompts.js';
export * from './guards/index.js';
export { history, type HistorySlot } from './session/history.js';
export { memory, type MemoryOptions, type MemorySlot } from './session/memory.js';
export { approval, type ApprovalOptions, type ApprovalSlot, type ApprovalRecord } from './approval/approval.js';
export { withApproval } from './pipeline-policies.js';
export {
  finalOutput,
  withOutput,
  outputOf,
  type FinalOutputOptions,
  type FinalOutputSlot,
} from './loop/final-output.js';
