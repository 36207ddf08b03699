// Every change to the plan slot (start, finish a step, replace later steps, move on), and helpers the plan stages share; not a stage itself.
import type { StageContext } from '../src/engine/stage.js';
import type { RunState } from '../src/engine/state.js';
import type { ChatModel } from '../src/model/types.js';
import type { PlanSlot, PlanStep, StepResult } from './plan-slot.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    step_finished: { step: number; description: string; outcome: 'completed' | 'partial' | 'failed'; result: string };
    plan_updated: { steps: Array<{ description: string; status: string }>; current: number | null; reason: string };
  }
}

/** Index of the step being worked on, or null when the run has no plan (ReAct) or no step in progress. */
export function activeStep(state: RunState): number | null {
  const plan = state.plan;
  if (plan === undefined) return null;
  return plan.steps[plan.current]?.status === 'in_progress' ? plan.current : null;
}

/** Ends the current step: its status, its result in the run-wide history, and the events that report it. */
export function finishStep(state: RunState, ctx: StageContext, outcome: StepResult['outcome'], output: string): void {
  const plan = state.plan;
  const step = plan?.steps[plan.current];
  if (plan === undefined || step === undefined) return;
  step.status = outcome === 'failed' ? 'failed' : 'completed';
  plan.results.push({ step: plan.current + 1, description: step.description, outcome, output });
  ctx.emit('step_finished', { step: plan.current + 1, description: step.description, outcome, result: shortText(output) });
  ctx.emit('plan_updated', { steps: planView(plan), current: plan.current + 1, reason: `step ${plan.current + 1} ${outcome}` });
}

/** A new plan, started at its first step (whatever statuses the planner gave). */
export function startPlan(state: RunState, steps: PlanStep[], source: PlanSlot['source']): PlanSlot {
  steps[0]!.status = 'in_progress';
  state.plan = { steps, current: 0, results: [], source };
  return state.plan;
}

/** Replaces the steps after `afterStep` (completed work is never rewritten). */
export function replaceStepsAfter(plan: PlanSlot, afterStep: number, descriptions: readonly string[]): void {
  plan.steps = [...plan.steps.slice(0, afterStep), ...descriptions.map((description) => ({ description, status: 'pending' as const }))];
}

/** Moves to step `index` and starts it; undefined when the plan has no such step (every step is done). */
export function advanceTo(plan: PlanSlot, index: number): PlanStep | undefined {
  plan.current = index;
  const next = plan.steps[index];
  if (next !== undefined) next.status = 'in_progress';
  return next;
}

/** The plan as event data: a fresh copy, so later edits do not change an event already emitted. */
export function planView(plan: PlanSlot): Array<{ description: string; status: string }> {
  return plan.steps.map((step) => ({ description: step.description, status: step.status }));
}

export function requireModel(ctx: StageContext, stage: string): ChatModel {
  const model = ctx.deps.model;
  if (model === undefined) throw new Error(`stage "${stage}" needs a model: pass deps.model to runPipeline`);
  return model;
}

/** One line of at most `limit` characters, for events and summaries. */
export function shortText(text: string, limit = 200): string {
  // Fast path for the common short single-line text: no regex, no copy.
  if (text.length <= limit && text.indexOf('\n') === -1) return text;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 3)}...` : flat;
}
