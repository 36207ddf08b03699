// The built-in stages: each a factory closing over its options and returning a named, stateless Stage.
export { context, type ContextOptions, type ContextSlot } from './context.js';
export { plan, planSchema, stepStatuses, type PlanOptions, type PlanSlot, type PlanStep, type StepResult, type StepStatus } from './plan.js';
export { think, type ThinkOptions, type ThinkSlot } from './think.js';
export { act, type ActOptions, type ActSlot } from './act.js';
export { handoffStage, withHandoffs } from './handoff.js';
export { observe, type ObserveOptions, type ObserveSlot, type ObservedResult } from './observe.js';
export { evaluate, type EvaluateOptions, type EvaluateSlot, type Verdict, type VerdictRecord, type AnswerJudgement, type AnswerJudgeHook } from './evaluate.js';
export { answerJudge, type AnswerJudgeOptions } from './answer-judge.js';
export { replan, replanSchema, type ReplanOptions, type ReplanSlot, type ReplanDecision } from './replan.js';
export { summarize, type SummarizeOptions, type SummarizeSlot, type SummaryPath } from './summarize.js';
export { renderMessages, renderSystemPrompt, defaultInstructions } from './prompts.js';
export * from './guards.js';
export { history, type HistorySlot } from './history.js';
export { memory, type MemoryOptions, type MemorySlot } from './memory.js';
export { approval, withApproval, type ApprovalOptions, type ApprovalSlot, type ApprovalRecord } from './approval.js';
export { finalOutput, withOutput, outputOf, type FinalOutputOptions, type FinalOutputSlot } from './final-output.js';
