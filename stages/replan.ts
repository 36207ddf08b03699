// replan (iteration): reads the plan, the evaluate verdict and the observe slot; writes the plan (later steps, current step), messages, turn, usage and the replan slot; returns breakLoop 'completed' when every step is done.
import { z } from 'zod';
import { breakLoop } from '../src/engine/signal.js';
import type { Stage, StageContext } from '../src/engine/stage.js';
import { addUsage, type RunState } from '../src/engine/state.js';
import type { ChatModel } from '../src/model/types.js';
import type {} from './evaluate.js';
import type {} from './observe.js';
import type { PlanSlot } from './plan-slot.js';
import { recordModelFailure } from './model-failure.js';
import { isInvalidResponse, temperatureOf } from './plan.js';
import { advanceTo, finishStep, planView, replaceStepsAfter, requireModel } from './plan-steps.js';
import { renderMessages, renderPlan, renderResults, replannerInstructions } from './prompts.js';
import { parseStructured } from './structured-output.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    replan_decision: ReplanDecision & { replans: number; maxReplans: number; newSteps: string[] };
    step_started: { step: number; description: string };
  }
}

export interface ReplanDecision {
  /** The 1-based step after which the decision was taken. */
  afterStep: number;
  needReplan: boolean;
  applied: boolean;
  reason: string;
}

export interface ReplanSlot {
  /** Replans applied so far. */
  count: number;
  decisions: ReplanDecision[];
}

declare module '../src/engine/state.js' {
  interface StageSlots {
    replan: ReplanSlot;
  }
}

export interface ReplanOptions {
  /** Replans applied per run (default 3); after that the plan is kept and the replanner is no longer asked. */
  maxReplans?: number;
  /** Most steps a plan may have after a replan (default 8). */
  maxSteps?: number;
  temperature?: number;
}

export const replanSchema = z.object({
  need_replan: z.boolean(),
  reason: z.string(),
  new_steps: z.array(z.string()),
});

export function replan(options: ReplanOptions = {}): Stage {
  const maxReplans = options.maxReplans ?? 3;
  const maxSteps = options.maxSteps ?? 8;
  return {
    name: 'replan',
    async execute(state, ctx) {
      const plan = state.plan;
      if (plan === undefined) return;
      const step = plan.steps[plan.current];
      if (step === undefined) return breakLoop('every plan step is done', 'completed');
      const verdict = state.evaluate;
      const requested = verdict?.verdict === 'replan' && verdict.iteration === state.iteration;
      const ended = step.status === 'completed' || step.status === 'failed';
      if (!ended && !requested) return;
      if (!ended) finishStep(state, ctx, 'failed', `Abandoned: ${verdict!.reason}.${latestResults(state)}`);

      const slot = (state.replan ??= { count: 0, decisions: [] });
      const afterStep = plan.current + 1;
      let decision: ReplanDecision;
      if (slot.count >= maxReplans) {
        decision = { afterStep, needReplan: false, applied: false, reason: `the replan cap of ${maxReplans} is reached; keeping the plan` };
      } else {
        const model = requireModel(ctx, 'replan');
        const answer = await consult(model, state, ctx, plan, options);
        if (!answer.ok) {
          decision = { afterStep, needReplan: false, applied: false, reason: `the replanner's reply was not valid (${answer.problem}); keeping the plan` };
        } else {
          const newSteps = answer.value.new_steps.map((text) => text.trim()).filter((text) => text !== '').slice(0, Math.max(0, maxSteps - afterStep));
          const applied = answer.value.need_replan;
          decision = { afterStep, needReplan: applied, applied, reason: answer.value.reason };
          if (applied) {
            // Only the steps after the one that just ended change; completed work is never rewritten.
            replaceStepsAfter(plan, afterStep, newSteps);
            slot.count++;
          }
        }
      }
      slot.decisions.push(decision);
      ctx.emit('replan_decision', { ...decision, replans: slot.count, maxReplans, newSteps: decision.applied ? plan.steps.slice(afterStep).map((next) => next.description) : [] });

      state.turn = { toolCalls: [], results: [] };
      const next = advanceTo(plan, afterStep);
      if (next === undefined) {
        ctx.emit('plan_updated', { steps: planView(plan), current: null, reason: 'every step is done' });
        return breakLoop('every plan step is done', 'completed');
      }
      // A step boundary: the next reasoning call starts from a fresh brief, not from the last step's tool traffic.
      state.messages = renderMessages(state);
      ctx.emit('step_started', { step: plan.current + 1, description: next.description });
      ctx.emit('plan_updated', { steps: planView(plan), current: plan.current + 1, reason: decision.applied ? `replanned: ${decision.reason}` : `step ${plan.current + 1} started` });
    },
  };
}

type ReplannerAnswer = { ok: true; value: z.infer<typeof replanSchema> } | { ok: false; problem: string };

async function consult(model: ChatModel, state: RunState, ctx: StageContext, plan: PlanSlot, options: ReplanOptions): Promise<ReplannerAnswer> {
  const ended = plan.results[plan.results.length - 1];
  const remaining = plan.steps.slice(plan.current + 1);
  const brief = [
    `Goal: ${state.input.task}`,
    `Plan:\n${renderPlan(plan)}`,
    `Results so far:\n${renderResults(plan.results)}`,
    ended ? `The step that just ended: step ${ended.step} (${ended.outcome})` : '',
    `Remaining steps: ${remaining.length > 0 ? remaining.map((step) => step.description).join(' | ') : 'none'}`,
  ].filter((part) => part !== '').join('\n\n');
  try {
    const response = await model.chat(
      {
        messages: [
          { role: 'system', content: replannerInstructions },
          { role: 'user', content: brief },
        ],
        responseFormat: { name: 'replan', schema: replanSchema },
        purpose: 'replan',
        ...temperatureOf(options),
      },
      ctx.signalIfAbortable,
    );
    addUsage(state.usage, response.usage);
    return parseStructured(response, replanSchema);
  } catch (error) {
    if (isInvalidResponse(error)) return { ok: false, problem: (error as Error).message };
    throw recordModelFailure(state, 'replan', error);
  }
}

function latestResults(state: RunState): string {
  const results = state.observe?.step === state.plan?.current ? state.observe?.results ?? [] : [];
  if (results.length === 0) return '';
  return ` Latest tool results: ${results.slice(-3).map((result) => `${result.tool}: ${result.content}`).join('; ')}.`;
}
