// Starts the plan's ready steps: one at a time in the run's own state (maxParallel 1, today's order), or up to
// maxParallel side by side, each with its own brief and working memory. Not a stage: plan and replan use it.
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { PlanSlot, StepBranch } from './plan-slot.js';
import { blockDependants, hasSubPlan, readySteps, runningIds, startStep } from '../shared/plan-steps.js';
import { renderMessages } from '../shared/prompts.js';
import { emptyTurn } from '../shared/turn.js';

/** Blocks what can no longer run, then starts what is ready while there is room; returns the started indexes. */
export function startReadySteps(state: RunState, ctx: StageContext): number[] {
  const plan = state.plan!;
  blockDependants(plan);
  startSubPlans(plan, ctx);
  if (!(plan.maxParallel > 1)) {
    if (runningIds(plan).length > 0) return [];
    const next = readySteps(plan)[0];
    if (next === undefined) {
      plan.current = plan.steps.length;
      return [];
    }
    plan.current = next;
    startStep(plan, ctx, next);
    // A step boundary: the next reasoning call starts from a fresh brief, not from the last step's tool traffic.
    state.messages = renderMessages(state);
    state.turn = emptyTurn();
    return [next];
  }
  const started: number[] = [];
  for (const index of readySteps(plan).slice(0, Math.max(0, plan.maxParallel - plan.running.length))) {
    const step = startStep(plan, ctx, index);
    plan.running.push(step.id);
    plan.branches[step.id] = newBranch(state, index);
    started.push(index);
  }
  plan.current = currentIndex(plan);
  return started;
}

/**
 * A ready step with a sub-plan starts at once and takes no room: its sub-steps are the ones that run (and may be
 * sub-plans in turn, started the same way).
 */
function startSubPlans(plan: PlanSlot, ctx: StageContext): void {
  for (let started = true; started;) {
    started = false;
    for (const index of readySteps(plan)) {
      if (!hasSubPlan(plan, plan.steps[index]!)) continue;
      startStep(plan, ctx, index);
      started = true;
    }
  }
}

/** The first running step, else the plan's length (nothing left to work on). */
export function currentIndex(plan: PlanSlot): number {
  const first = plan.running[0];
  const index = first === undefined ? -1 : plan.steps.findIndex((step) => step.id === first);
  return index === -1 ? plan.steps.length : index;
}

function newBranch(state: RunState, index: number): StepBranch {
  return {
    messages: renderMessages(state, index),
    turn: emptyTurn(),
    nextTurn: { notes: [], withoutTools: false },
    slots: {},
  };
}
