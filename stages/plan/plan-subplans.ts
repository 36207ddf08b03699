// A step's sub-plan ending: a step with sub-steps is done when its sub-plan is over, its result the sub-steps'
// results combined; and the plan level a replan rewrites. Not a stage: replan uses it.
import type { StageContext } from '../../src/engine/stage.js';
import type { PlanSlot, PlanStep } from './plan-slot.js';
import { hasSubPlan, planView, readySteps, runningIds } from '../shared/plan-steps.js';
import { shortText } from '../shared/text.js';

/**
 * Ends every started step whose sub-plan is over (no sub-step running or ready): `completed` when each sub-step
 * completed (or was replaced by a replan inside the sub-plan), else `failed`. Deepest first, so an ending sub-plan
 * can end its parent's in the same pass. Returns the indexes of the steps it ended.
 */
export function endOverSubPlans(plan: PlanSlot, ctx: StageContext): number[] {
  const ended: number[] = [];
  for (let changed = true; changed;) {
    changed = false;
    const ready = new Set(readySteps(plan).map((index) => plan.steps[index]!.id));
    for (let index = plan.steps.length - 1; index >= 0; index--) {
      const step = plan.steps[index]!;
      if (step.status !== 'in_progress' || !hasSubPlan(plan, step)) continue;
      const children = plan.steps.filter((child) => child.parent === step.id);
      if (children.some((child) => child.status === 'in_progress' || ready.has(child.id))) continue;
      endSubPlan(plan, ctx, index, children);
      ended.push(index);
      changed = true;
    }
  }
  return ended;
}

/**
 * The step's result is its sub-steps' results, one line each in plan order ("id: result"); a sub-step that did not
 * succeed is named with its status. The sub-steps' own results stay in the plan's results for the final answer.
 */
function endSubPlan(plan: PlanSlot, ctx: StageContext, index: number, children: readonly PlanStep[]): void {
  const step = plan.steps[index]!;
  const open = children.filter((child) => child.status !== 'completed' && child.status !== 'replaced');
  step.status = open.length === 0 ? 'completed' : 'failed';
  step.result = children
    .filter((child) => child.status !== 'replaced')
    .map((child) => `${child.id}: ${child.status === 'completed' ? (child.result ?? '') : `(${child.status})`}`)
    .join('\n');
  ctx.emit('step_finished', {
    step: index + 1,
    id: step.id,
    description: step.description,
    outcome: step.status === 'completed' ? 'completed' : 'failed',
    result: shortText(step.result),
    ...(step.parent === undefined ? {} : { parent: step.parent }),
  });
  ctx.emit('plan_updated', {
    steps: planView(plan),
    current: plan.current + 1,
    running: runningIds(plan),
    reason: `the sub-plan of ${step.id} is over: ${step.status}`,
  });
}

/**
 * The plan level a replan rewrites after these steps ended: the sub-plan of the shallowest failed one (its failure is
 * answered where it happened, while its sub-plan still has work), or the run's own plan.
 */
export function replanScope(plan: PlanSlot, ended: readonly number[]): string | undefined {
  const failed = ended.map((index) => plan.steps[index]!).filter((step) => step.status === 'failed');
  if (failed.length === 0) return undefined;
  const depth = (step: PlanStep) => {
    let levels = 0;
    for (let parent = step.parent; parent !== undefined; parent = plan.steps.find((s) => s.id === parent)?.parent)
      levels++;
    return levels;
  };
  return failed.sort((left, right) => depth(left) - depth(right))[0]!.parent;
}
