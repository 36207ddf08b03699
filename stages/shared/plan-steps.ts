// Every change to the plan slot (start a plan, finish a step, block dependants, rewrite unstarted steps, start the
// ready ones), and helpers the plan stages share; not a stage itself.
import { shortText } from './text.js';
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { PlanSlot, PlanStep, StepResult } from '../plan/plan-slot.js';

/** A step as events and `--json` show it. */
export interface StepView {
  id: string;
  description: string;
  dependsOn: string[];
  tool?: string;
  priority?: number;
  status: string;
  /** The step whose sub-plan this step belongs to (absent at the run's own plan). */
  parent?: string;
}

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    step_finished: {
      step: number;
      id: string;
      description: string;
      outcome: 'completed' | 'partial' | 'failed';
      result: string;
      /** A sub-step: the step whose sub-plan it belongs to. */
      parent?: string;
    };
    plan_updated: { steps: StepView[]; current: number | null; running: string[]; reason: string };
    step_started: {
      step: number;
      id: string;
      description: string;
      dependsOn: string[];
      attempt: number;
      /** A sub-step: the step whose sub-plan it belongs to. */
      parent?: string;
    };
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
  step.result = output;
  plan.results.push({ step: plan.current + 1, id: step.id, description: step.description, outcome, output });
  ctx.emit('step_finished', {
    step: plan.current + 1,
    id: step.id,
    description: step.description,
    outcome,
    result: shortText(output),
    ...parentOf(step),
  });
  ctx.emit('plan_updated', {
    steps: planView(plan),
    current: plan.current + 1,
    running: runningIds(plan),
    reason: `step ${step.id} ${outcome}`,
  });
}

/** A new plan; nothing is started yet (startReady does that). */
export function newPlan(
  goal: string,
  steps: PlanStep[],
  source: PlanSlot['source'],
  maxParallel: number,
  reasoning?: string,
): PlanSlot {
  const plan: PlanSlot = {
    goal,
    steps,
    current: 0,
    results: [],
    source,
    maxParallel,
    running: [],
    branches: {},
    replanRequests: [],
  };
  if (reasoning !== undefined) plan.reasoning = reasoning;
  return plan;
}

/** Marks `blocked` every unstarted step that needs a failed or blocked step; returns the ids it blocked. */
export function blockDependants(plan: PlanSlot): string[] {
  const blocked: string[] = [];
  const byId = new Map(plan.steps.map((step) => [step.id, step]));
  for (let changed = true; changed;) {
    changed = false;
    for (const step of plan.steps) {
      if (step.status !== 'pending') continue;
      const ended = (id: string | undefined) => {
        const status = id === undefined ? undefined : byId.get(id)?.status;
        return status === 'failed' || status === 'blocked' || status === 'replaced';
      };
      // A sub-step of a step that failed or cannot start cannot run either.
      if (step.dependsOn.some(ended) || ended(step.parent)) {
        step.status = 'blocked';
        blocked.push(step.id);
        changed = true;
      }
    }
  }
  return blocked;
}

/**
 * Pending steps whose dependencies have all completed (a sub-step's parent has started too), by priority (1 first,
 * none last), then in plan order.
 */
export function readySteps(plan: PlanSlot): number[] {
  const byId = new Map(plan.steps.map((step) => [step.id, step]));
  const ready: number[] = [];
  plan.steps.forEach((step, index) => {
    if (
      step.status === 'pending' &&
      step.dependsOn.every((id) => byId.get(id)?.status === 'completed') &&
      (step.parent === undefined || byId.get(step.parent)?.status === 'in_progress')
    )
      ready.push(index);
  });
  const rank = (index: number) => plan.steps[index]!.priority ?? Number.POSITIVE_INFINITY;
  return ready.sort((left, right) => rank(left) - rank(right) || left - right);
}

/** Starts a step: in progress, one more attempt, and the event that says so. */
export function startStep(plan: PlanSlot, ctx: StageContext, index: number): PlanStep {
  const step = plan.steps[index]!;
  step.status = 'in_progress';
  step.attempts += 1;
  delete step.result;
  ctx.emit('step_started', {
    step: index + 1,
    id: step.id,
    description: step.description,
    dependsOn: [...step.dependsOn],
    attempt: step.attempts,
    ...parentOf(step),
  });
  return step;
}

/**
 * Replaces the steps that have not started (pending or blocked) in one plan level, the run's own (`scope` absent) or
 * a step's sub-plan, with `steps`; finished and running steps stay. The new steps go after the kept ones of that level.
 */
export function replaceUnstarted(plan: PlanSlot, steps: readonly PlanStep[], scope?: string): void {
  const inScope = (step: PlanStep) => step.parent === scope;
  const dropped = new Set(
    plan.steps
      .filter((step) => inScope(step) && (step.status === 'pending' || step.status === 'blocked'))
      .map((step) => step.id),
  );
  const kept = plan.steps.filter((step) => !dropped.has(step.id) && !hasAncestorIn(plan, step, dropped));
  const end = scope === undefined ? kept.length : subtreeEnd(kept, scope);
  plan.steps = [...kept.slice(0, end), ...steps, ...kept.slice(end)];
  // The replanner saw the failures when it wrote the new plan: they are answered, no longer open (with their sub-plans).
  const answered = new Set(
    plan.steps.filter((step) => inScope(step) && step.status === 'failed').map((step) => step.id),
  );
  for (const step of plan.steps)
    if (step.status === 'failed' && (answered.has(step.id) || hasAncestorIn(plan, step, answered)))
      step.status = 'replaced';
}

/** Whether one of the step's enclosing steps is in `ids`. */
function hasAncestorIn(plan: PlanSlot, step: PlanStep, ids: ReadonlySet<string>): boolean {
  for (let parent = step.parent; parent !== undefined; parent = plan.steps.find((known) => known.id === parent)?.parent)
    if (ids.has(parent)) return true;
  return false;
}

/** The index just after the step `id` and all of its sub-steps (the list is depth first). */
function subtreeEnd(steps: readonly PlanStep[], id: string): number {
  const inside = new Set([id]);
  let end = steps.findIndex((step) => step.id === id) + 1;
  while (end < steps.length && steps[end]!.parent !== undefined && inside.has(steps[end]!.parent!))
    inside.add(steps[end++]!.id);
  return end;
}

/** Whether the step has a sub-plan (it runs no model call itself). */
export function hasSubPlan(plan: PlanSlot, step: PlanStep): boolean {
  return plan.steps.some((known) => known.parent === step.id);
}

/** True when no step can run any more: none running, none ready. */
export function planIsOver(plan: PlanSlot): boolean {
  return !plan.steps.some((step) => step.status === 'in_progress') && readySteps(plan).length === 0;
}

/** The steps at work: in progress, without a sub-plan (a step with one is at work through its sub-steps). */
export function runningIds(plan: PlanSlot): string[] {
  return plan.steps.filter((step) => step.status === 'in_progress' && !hasSubPlan(plan, step)).map((step) => step.id);
}

function parentOf(step: PlanStep): { parent?: string } {
  return step.parent === undefined ? {} : { parent: step.parent };
}

/** The plan as event data: a fresh copy, so later edits do not change an event already emitted. */
export function planView(plan: PlanSlot): StepView[] {
  return plan.steps.map(stepView);
}

export function stepView(step: PlanStep): StepView {
  const view: StepView = {
    id: step.id,
    description: step.description,
    dependsOn: [...step.dependsOn],
    status: step.status,
  };
  if (step.tool !== undefined) view.tool = step.tool;
  if (step.priority !== undefined) view.priority = step.priority;
  if (step.parent !== undefined) view.parent = step.parent;
  return view;
}

/**
 * The ids a step needs, directly or through the steps it depends on, in plan order. A sub-step also needs what its
 * enclosing steps depend on, and a step that depends on one with a sub-plan needs that sub-plan's steps.
 */
export function dependencyClosure(plan: PlanSlot, index: number): Set<string> {
  const byId = new Map(plan.steps.map((step) => [step.id, step]));
  const needed = new Set<string>();
  const pending = [...plan.steps[index]!.dependsOn];
  for (
    let parent = byId.get(plan.steps[index]!.parent ?? '');
    parent !== undefined;
    parent = byId.get(parent.parent ?? '')
  )
    pending.push(...parent.dependsOn);
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (needed.has(id)) continue;
    needed.add(id);
    pending.push(...(byId.get(id)?.dependsOn ?? []));
    pending.push(...plan.steps.filter((step) => step.parent === id).map((step) => step.id));
  }
  return needed;
}
