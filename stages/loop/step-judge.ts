// The step-result judge (evaluate({ stepJudge })), a helper of evaluate.ts: when a plan step's turn ends it with a
// result, the hook says whether the result is of use; a useless one is a failed attempt the step makes again, and
// once the retries are spent the step fails (the replanner takes it from there). Not a stage.
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { StepResult } from '../plan/plan-slot.js';
import { startStep } from '../shared/plan-steps.js';
import type { EvaluateSlot } from './evaluate-slot.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    step_judged: { step: number; id: string; accept: boolean; reason: string; attempt: number };
  }
}

/** A judge's decision on a step's result. */
export interface StepJudgement {
  accept: boolean;
  reason: string;
}

/** Is this step result of use for its step (`result.description`)? Sync or async; a model call allowed. */
export type StepJudgeHook = (state: RunState, result: StepResult) => StepJudgement | Promise<StepJudgement>;

/** The result the current plan step produced in this turn (its text reply ended it), or undefined. */
export function endedStepResult(state: RunState): StepResult | undefined {
  const plan = state.plan;
  const step = plan?.steps[plan.current];
  if (plan === undefined || step === undefined || step.status !== 'completed') return undefined;
  // A turn with tool calls did not end the step; a step ended in an earlier turn was judged then.
  if (state.turn.toolCalls.length > 0) return undefined;
  const result = plan.results.findLast((entry) => entry.id === step.id);
  return result?.outcome === 'failed' ? undefined : result;
}

/**
 * Applies the judge's decision. Rejected with retries left: the result leaves the plan, the step starts again (one
 * more attempt) and the model is told why; rejected with none left: the step fails with the reason.
 */
export function applyStepJudgement(
  state: RunState,
  ctx: StageContext,
  slot: EvaluateSlot,
  result: StepResult,
  decision: StepJudgement,
  maxRetries: number,
): void {
  const plan = state.plan!;
  const step = plan.steps[plan.current]!;
  const judged = { accept: decision.accept === true, reason: String(decision.reason ?? '') };
  ctx.emit('step_judged', { step: plan.current + 1, id: step.id, ...judged, attempt: step.attempts });
  if (judged.accept) return;
  slot.stepRejections = (slot.stepRejections ?? 0) + 1;
  if (slot.stepRejections > maxRetries) {
    step.status = 'failed';
    result.outcome = 'failed';
    result.output = `Not of use (${judged.reason}): ${result.output}`;
    step.result = result.output;
    slot.rejection = `step ${plan.current + 1}'s result was not of use (${judged.reason}): the step fails`;
    return;
  }
  // In place: a step beside others sees the plan through a view whose arrays are the run's.
  plan.results.splice(plan.results.indexOf(result), 1);
  startStep(plan, ctx, plan.current);
  // The step's rounds start again with the new attempt.
  if (state.think !== undefined) state.think.step = null;
  state.nextTurn.notes.push(
    `Your result for this step was checked and is not of use: ${judged.reason}. Work on the step again and give a better result.`,
  );
  slot.rejection = `step ${plan.current + 1}'s result was not of use (${judged.reason}): attempt ${step.attempts}`;
}
