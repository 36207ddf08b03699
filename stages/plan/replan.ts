// replan (iteration): reads the plan (and each running step's evaluate verdict), the observe slot and the replan request; writes the plan (statuses, unstarted steps, running steps), messages, turn, usage and the replan slot; returns breakLoop 'completed' when every step succeeded, abortRun 'goal_not_met' when no step can run and some did not succeed.
import { abortRun, breakLoop, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type {} from '../loop/evaluate-slot.js';
import type { ObserveSlot } from '../loop/observe-slot.js';
import type { PlanSlot } from './plan-slot.js';
import { branchView } from './plan-branch.js';
import { currentIndex, startReadySteps } from './plan-schedule.js';
import {
  blockDependants,
  finishStep,
  planIsOver,
  planView,
  replaceUnstarted,
  runningIds,
} from '../shared/plan-steps.js';
import { replanRequested, takeReplanRequest } from './plan-tools.js';
import { endOverSubPlans, replanScope } from './plan-subplans.js';
import { consult, type ReplannerOptions } from './replan-ask.js';
import { modelNeeded } from '../shared/model-stream.js';

export { replanSchema } from './replan-ask.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    replan_decision: ReplanDecision & { replans: number; maxReplans: number; newSteps: string[] };
    goal_not_met: { failed: string[]; blocked: string[] };
  }
}

export interface ReplanDecision {
  /** The 1-based position of the (first) step after which the decision was taken. */
  afterStep: number;
  /** The ids of the steps that had just ended. */
  ended: string[];
  needReplan: boolean;
  applied: boolean;
  reason: string;
}

export interface ReplanSlot {
  /** Replans applied so far. */
  count: number;
  decisions: ReplanDecision[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    replan: ReplanSlot;
  }
}

export interface ReplanOptions extends ReplannerOptions {
  /** Replans applied per run (default 3); after that the plan is kept and the replanner is no longer asked. */
  maxReplans?: number;
  /** Most steps a plan may have after a replan (default 8). */
  maxSteps?: number;
  /** Times a step is started before its failure stands (default 1: no retry). */
  maxStepAttempts?: number;
}

export function replan(options: ReplanOptions = {}): Stage {
  const maxReplans = options.maxReplans ?? 3;
  const maxSteps = options.maxSteps ?? 8;
  const maxAttempts = options.maxStepAttempts ?? 1;
  return {
    name: 'replan',
    needs: modelNeeded,
    async execute(state, ctx) {
      const plan = state.plan;
      if (plan === undefined) return;
      const ended = endedSteps(state, ctx, plan);
      const retried = ended.filter(
        (index) => plan.steps[index]!.status === 'failed' && plan.steps[index]!.attempts < maxAttempts,
      );
      for (const index of retried) retry(state, plan, index);
      blockDependants(plan);
      // Steps whose sub-plan is now over end too, and the replanner hears of them like any other step.
      ended.push(...endOverSubPlans(plan, ctx));
      if (ended.length === 0) return planIsOver(plan) ? finished(state, ctx, plan) : undefined;
      const scope = replanScope(plan, ended);
      const slot = (state.replan ??= { count: 0, decisions: [] });
      const afterStep = ended[0]! + 1;
      const endedIds = ended.map((index) => plan.steps[index]!.id);
      const requested = takeReplanRequest(state);
      let decision: ReplanDecision;
      if (slot.count >= maxReplans) {
        decision = {
          afterStep,
          ended: endedIds,
          needReplan: false,
          applied: false,
          reason: `the replan cap of ${maxReplans} is reached; keeping the plan`,
        };
      } else {
        const answer = await consult(state, ctx, plan, options, maxSteps, requested, scope);
        if (!answer.ok) {
          decision = {
            afterStep,
            ended: endedIds,
            needReplan: false,
            applied: false,
            reason: `the replanner's reply was not valid (${answer.problem}); keeping the plan`,
          };
        } else {
          const { needReplan, reason, steps } = answer.value;
          decision = {
            afterStep,
            ended: endedIds,
            needReplan,
            applied: needReplan,
            reason: requested ? `${reason} (asked for by the model: ${requested})` : reason,
          };
          if (needReplan) {
            // Only the steps that have not started change; finished and running work is never rewritten.
            replaceUnstarted(plan, steps, scope);
            slot.count++;
          }
        }
      }
      slot.decisions.push(decision);
      const newSteps = decision.applied
        ? plan.steps.filter((step) => step.status === 'pending').map((step) => step.description)
        : [];
      ctx.emit('replan_decision', { ...decision, replans: slot.count, maxReplans, newSteps });

      startReadySteps(state, ctx);
      // A replan inside a sub-plan may leave it with nothing to run: it ends now, not in a later iteration.
      while (endOverSubPlans(plan, ctx).length > 0) startReadySteps(state, ctx);
      if (planIsOver(plan)) return finished(state, ctx, plan);
      plan.current = !(plan.maxParallel > 1) ? plan.current : currentIndex(plan);
      ctx.emit('plan_updated', {
        steps: planView(plan),
        current: plan.current + 1,
        running: runningIds(plan),
        reason: decision.applied ? `replanned: ${decision.reason}` : 'steps started',
      });
    },
  };
}

/** Ends the steps whose work is over this iteration (done, or abandoned on a replan verdict); their indexes. */
function endedSteps(state: RunState, ctx: StageContext, plan: PlanSlot): number[] {
  const ended: number[] = [];
  if (!(plan.maxParallel > 1)) {
    const index = plan.current;
    const step = plan.steps[index];
    if (step === undefined) return ended;
    if (step.status === 'in_progress' && abandonRequested(state, state.evaluate, index)) {
      finishStep(
        state,
        ctx,
        'failed',
        `Abandoned: ${abandonReason(state, state.evaluate, index)}.${latestResults(state.observe, index)}`,
      );
    }
    if (step.status === 'completed' || step.status === 'failed') ended.push(index);
    return ended;
  }
  for (const id of [...plan.running]) {
    const index = plan.steps.findIndex((step) => step.id === id);
    const step = plan.steps[index];
    const branch = plan.branches[id];
    if (step === undefined || branch === undefined) continue;
    const verdict = branch.slots.evaluate as RunState['evaluate'];
    const observed = branch.slots.observe as ObserveSlot | undefined;
    if (step.status === 'in_progress' && abandonRequested(state, verdict, index)) {
      finishStep(
        branchView(state, plan, index, branch),
        ctx,
        'failed',
        `Abandoned: ${abandonReason(state, verdict, index)}.${latestResults(observed, index)}`,
      );
    }
    if (step.status !== 'completed' && step.status !== 'failed') continue;
    plan.running = plan.running.filter((running) => running !== id);
    delete plan.branches[id];
    ended.push(index);
  }
  return ended;
}

/** Evaluate gave a replan verdict this iteration, or the model asked for a new plan through the replan tool. */
function abandonRequested(state: RunState, verdict: RunState['evaluate'], index: number): boolean {
  return (
    (verdict?.verdict === 'replan' && verdict.iteration === state.iteration) ||
    replanRequested(state, state.plan!.steps[index]!.id) !== undefined
  );
}

function abandonReason(state: RunState, verdict: RunState['evaluate'], index: number): string {
  const asked = replanRequested(state, state.plan!.steps[index]!.id);
  if (asked !== undefined) return `the model asked for a new plan (${asked})`;
  return verdict?.reason ?? 'the step was abandoned';
}

/** A failed step with attempts left starts again from a fresh brief; its failed result leaves the history. */
function retry(state: RunState, plan: PlanSlot, index: number): void {
  const step = plan.steps[index]!;
  step.status = 'pending';
  plan.results = plan.results.filter((result) => result.id !== step.id);
  // The round and failure counters belong to the attempt, not to the step's position.
  if (!(plan.maxParallel > 1)) {
    if (state.think !== undefined) state.think.step = null;
    if (state.evaluate !== undefined) state.evaluate.step = null;
  }
}

/**
 * No step can run any more: every step succeeded (completed), or the goal is not met (stopped, with the failed steps).
 * Only the run's own steps count: a step with a sub-plan already says how its sub-steps went.
 */
function finished(state: RunState, ctx: StageContext, plan: PlanSlot): Signal {
  plan.current = plan.steps.length;
  ctx.emit('plan_updated', { steps: planView(plan), current: null, running: [], reason: 'no step is left to run' });
  const top = plan.steps.filter((step) => step.parent === undefined);
  const failed = top.filter((step) => step.status === 'failed').map((step) => step.id);
  const blocked = top.filter((step) => step.status === 'blocked' || step.status === 'pending').map((step) => step.id);
  const partial = plan.results.filter((result) => result.outcome === 'partial').map((result) => result.id);
  if (failed.length === 0 && blocked.length === 0) {
    return breakLoop(
      partial.length === 0 ? 'every plan step is done' : `every plan step is done (${partial.join(', ')} only in part)`,
      'completed',
    );
  }
  ctx.emit('goal_not_met', { failed, blocked });
  const parts = [
    failed.length > 0 ? `failed: ${failed.join(', ')}` : '',
    blocked.length > 0 ? `blocked: ${blocked.join(', ')}` : '',
  ].filter((part) => part !== '');
  return abortRun(`the goal was not met: not every plan step succeeded (${parts.join('; ')})`, 'goal_not_met');
}

function latestResults(observed: ObserveSlot | undefined, index: number): string {
  const results = observed?.step === index ? observed.results : [];
  if (results.length === 0) return '';
  return ` Latest tool results: ${results
    .slice(-3)
    .map((result) => `${result.tool}: ${result.content}`)
    .join('; ')}.`;
}
