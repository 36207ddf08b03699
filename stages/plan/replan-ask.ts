// The replanner's question and the reading of its reply, a helper of replan.ts: the brief, the rules new steps must keep, and the reply schema; its own file so replan.ts holds the deciding and the scheduling.
import { z } from 'zod';
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { PlanSlot, PlanStep } from './plan-slot.js';
import { askWithRepairs } from './plan-ask.js';
import { readJson } from './plan-json.js';
import { knowledgeSection } from './plan-knowledge.js';
import { stepsFromJson, type Parsed } from './plan-parse.js';
import { requireModel, temperatureOf } from '../shared/model-stream.js';
import { renderPlan, renderResults } from '../shared/prompts.js';
import { replannerInstructions } from './plan-prompts.js';

/** How the replanner is asked (part of ReplanOptions). */
export interface ReplannerOptions {
  /** Repair turns after a reply that cannot be read (default 2), before the plan is kept. */
  maxRepairs?: number;
  /** Tokens the facts and session history may take in the replanner's prompt (default 1,500). */
  knowledgeTokens?: number;
  temperature?: number;
}

const graphLeaf = {
  id: z.string().optional(),
  description: z.string(),
  dependsOn: z.array(z.string()).optional(),
  tool: z.string().optional(),
  priority: z.number().optional(),
};
// A new step may bring its own sub-plan (`steps`); the reader refuses what nests deeper than maxPlanDepth.
const graphStep = z.object({
  ...graphLeaf,
  steps: z.array(z.union([z.string(), z.object({ ...graphLeaf, steps: z.array(z.unknown()).optional() })])).optional(),
});

export const replanSchema = z.object({
  need_replan: z.boolean(),
  reason: z.string(),
  new_steps: z.array(z.union([z.string(), graphStep])),
});

export type ReplannerReply = { needReplan: boolean; reason: string; steps: PlanStep[] };

/** Asks the replanner whether the plan's unstarted steps should change, and for which steps. */
export function consult(
  state: RunState,
  ctx: StageContext,
  plan: PlanSlot,
  options: ReplannerOptions,
  maxSteps: number,
  requested: string | undefined,
  scope?: string,
) {
  const model = requireModel(ctx, 'replan');
  // The level being replanned: the run's own steps, or the sub-steps of the step `scope`.
  const level = plan.steps.filter((step) => step.parent === scope);
  const kept = level.filter((step) => step.status !== 'pending' && step.status !== 'blocked');
  const unstarted = level.filter((step) => step.status === 'pending' || step.status === 'blocked');
  const owner = plan.steps.find((step) => step.id === scope);
  const endedNow = plan.results.slice(-1)[0];
  const knowledge = knowledgeSection(state, options.knowledgeTokens ?? 1_500);
  const brief = [
    `Goal: ${state.input.task}`,
    `Plan:\n${renderPlan(plan)}`,
    `Results so far:\n${renderResults(plan.results)}`,
    endedNow ? `The step that just ended: step ${endedNow.step} (${endedNow.outcome})` : '',
    `Remaining steps: ${unstarted.length > 0 ? unstarted.map((step) => `${step.id} [${step.status}]: ${step.description}`).join(' | ') : 'none'}`,
    requested ? `The executor asked for a new plan: ${requested}` : '',
    owner === undefined
      ? ''
      : `This replan is inside the sub-plan of step ${owner.id} (${owner.description}): new_steps replace its sub-steps that have not started and may depend only on its sub-steps (${level.map((step) => step.id).join(', ')}).`,
    knowledge === '' ? '' : `What the agent already knows:\n${knowledge}`,
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  const rules = {
    maxSteps: Math.max(1, maxSteps - kept.length),
    tools: ctx.deps.tools?.definitions().map((tool) => tool.name) ?? [],
    kept,
    idPrefix: `${scope === undefined ? '' : `${scope}.`}r${(state.replan?.count ?? 0) + 1}s`,
    // Ids still in the plan after the replan (a dropped step's id may be given again).
    taken: plan.steps
      .filter((step) => !unstarted.some((gone) => step.id === gone.id || step.id.startsWith(`${gone.id}.`)))
      .map((step) => step.id),
    depth: depthOf(plan, scope),
    ...(scope === undefined ? {} : { parent: scope }),
    chainAfter: kept
      .filter((step) => step.status === 'completed' || step.status === 'in_progress')
      .map((step) => step.id),
  };
  const read = (text: string): Parsed<ReplannerReply> => {
    const json = readJson(text);
    if (!json.ok) return json;
    return replyFrom(json.value, rules);
  };
  return askWithRepairs(model, state, ctx, {
    stage: 'replan',
    messages: [
      { role: 'system', content: replannerInstructions },
      { role: 'user', content: brief },
    ],
    read,
    maxRepairs: options.maxRepairs ?? 2,
    ...temperatureOf(options),
  });
}

/** The plan depth of the level under `scope`: 1 for the run's own steps. */
function depthOf(plan: PlanSlot, scope: string | undefined): number {
  let depth = 1;
  for (let id = scope; id !== undefined; id = plan.steps.find((step) => step.id === id)?.parent) depth++;
  return depth;
}

function replyFrom(value: unknown, rules: Parameters<typeof stepsFromJson>[1]): Parsed<ReplannerReply> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return {
      ok: false,
      problem: 'the reply is not a JSON object: give {"need_replan": ..., "reason": ..., "new_steps": [...]}',
    };
  const fields = value as Record<string, unknown>;
  const flag = fields.need_replan ?? fields.needReplan;
  const needReplan = flag === true || flag === 'true' ? true : flag === false || flag === 'false' ? false : undefined;
  if (needReplan === undefined) return { ok: false, problem: '"need_replan" must be true or false' };
  const reason = typeof fields.reason === 'string' ? fields.reason : '';
  const list = fields.new_steps ?? fields.newSteps ?? [];
  if (!Array.isArray(list)) return { ok: false, problem: '"new_steps" must be a list of steps' };
  if (!needReplan) return { ok: true, value: { needReplan, reason, steps: [] } };
  const usable = list.filter((item) => !(typeof item === 'string' && item.trim() === ''));
  if (usable.length === 0) return { ok: true, value: { needReplan, reason, steps: [] } };
  const steps = stepsFromJson(usable.slice(0, rules.maxSteps), rules);
  return steps.ok ? { ok: true, value: { needReplan, reason, steps: steps.value } } : steps;
}
