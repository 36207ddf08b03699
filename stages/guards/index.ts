// The guard stages' barrel: budgets, loop detection, injection screening, pruning. Settings-to-guards assembly (applyGuards) lives in pipelines/guards.ts, the placing in guard-places.ts.
export {
  budget,
  priceFor,
  costUsd,
  type BudgetOptions,
  type BudgetSlot,
  type BudgetStage,
  type BudgetKind,
  type ModelPrice,
} from './budget.js';
export {
  loopGuard,
  callFingerprint,
  canonicalJson,
  type LoopGuardOptions,
  type LoopGuardSlot,
  type LoopGuardStage,
  type LoopGuardEntry,
} from './loop-guard.js';
export {
  injectionGuard,
  type InjectionGuardOptions,
  type InjectionGuardSlot,
  type InjectionGuardStage,
  type InjectionAction,
  type InjectionDetector,
  type InjectionSource,
  type InjectionRecord,
  type InjectionDoor,
  type ChildAnswerScreen,
} from './injection/injection-guard.js';
export { normalizeForScreening, type NormalizedText } from './injection/injection-normalize.js';
export { judgedDetector, injectionRubric, type JudgedDetectorOptions } from './injection/injection-judge.js';
export { withTaintPolicy } from '../pipeline-policies.js';
export {
  taintTracker,
  taintGate,
  taintReason,
  taintPolicies,
  type TaintPolicy,
  type TaintOrigin,
  type TaintSlot,
} from './injection/taint.js';
export { detectInjection, type Detection, type DetectionMatch } from './injection/injection-detector.js';
export {
  prune,
  contextWindowFor,
  type PruneOptions,
  type PruneSlot,
  type PruneRecord,
  type PruneStage,
} from './prune.js';
export { limits, type LimitsInForce, type LimitedStage } from './limits.js';
export { contextShareTokens, defaultContextShare, unknownModelWindow } from '../shared/context-window.js';
export { sessionBudget, type SessionBudgetOptions } from './session-budget.js';
