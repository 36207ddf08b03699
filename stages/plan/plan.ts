// plan (setup): reads input.task, deps.tools, the context (facts) and history slots; writes the plan slot, messages or the running steps' briefs, usage, modelFailure; returns no signal.
import { clientConversation, withClientSystem } from '../../src/engine/client-conversation.js';
import { z } from 'zod';
import type { Stage } from '../../src/engine/stage.js';
import type { ChatMessage } from '../../src/model/types.js';
import { maxPlanDepth, type PlanSlot, type PlanStep } from './plan-slot.js';
import { askWithRepairs } from './plan-ask.js';
import { readJson } from './plan-json.js';
import { knowledgeSection } from './plan-knowledge.js';
import { planFromJson, type Parsed, type ParsedPlan } from './plan-parse.js';
import { startReadySteps } from './plan-schedule.js';
import { newPlan, planView, runningIds, type StepView } from '../shared/plan-steps.js';
import { modelNeeded, requireModel, temperatureOf } from '../shared/model-stream.js';
import { plannerInstructions } from './plan-prompts.js';
import { emptyTurn } from '../shared/turn.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    plan_created: {
      source: 'planner' | 'repaired' | 'fallback';
      goal: string;
      reasoning?: string;
      steps: StepView[];
      running: string[];
      maxParallel: number;
    };
    plan_fallback: { reason: string };
  }
}

export {
  maxPlanDepth,
  stepStatuses,
  type StepStatus,
  type PlanStep,
  type StepResult,
  type PlanSlot,
  type StepBranch,
} from './plan-slot.js';
export { isInvalidResponse } from './plan-ask.js';

export interface PlanOptions {
  /** Most steps a plan may have (default 8). */
  maxSteps?: number;
  /** Steps that may run at once (default 3); 1 runs them one after another. */
  maxParallelSteps?: number;
  /** Repair turns after a reply that is not a valid plan (default 2), before the one-step fallback. */
  maxRepairs?: number;
  /** Tokens the facts and session history may take in the planner's prompt (default 1,500; 0 leaves them out). */
  knowledgeTokens?: number;
  temperature?: number;
}

/**
 * The planner's reply in its full shape (the parser also takes the old list and a list of strings). A step may hold
 * its own `steps`, a sub-plan, down to maxPlanDepth levels: the schema itself stops there.
 */
export function planSchema(maxSteps: number) {
  const leaf = {
    id: z.string().trim().min(1),
    description: z.string().trim().min(1),
    dependsOn: z.array(z.string()),
    tool: z.string().optional(),
    priority: z.number().optional(),
  };
  let step: z.ZodType = z.object(leaf);
  for (let depth = maxPlanDepth; depth > 1; depth--)
    step = z.object({ ...leaf, steps: z.array(step).min(1).max(maxSteps).optional() });
  return z.object({ goal: z.string(), reasoning: z.string().optional(), steps: z.array(step).min(1).max(maxSteps) });
}

export function plan(options: PlanOptions = {}): Stage {
  const maxSteps = options.maxSteps ?? 8;
  const maxParallel = options.maxParallelSteps ?? 3;
  const maxRepairs = options.maxRepairs ?? 2;
  const knowledgeTokens = options.knowledgeTokens ?? 1_500;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new RangeError(`plan: maxSteps must be a positive integer, got ${maxSteps}`);
  if (!Number.isInteger(maxParallel) || maxParallel < 1)
    throw new RangeError(`plan: maxParallelSteps must be a positive integer, got ${maxParallel}`);
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0)
    throw new RangeError(`plan: maxRepairs must be a whole number, 0 or more, got ${maxRepairs}`);
  return {
    name: 'plan',
    needs: modelNeeded,
    async execute(state, ctx) {
      const model = requireModel(ctx, 'plan');
      const tools = ctx.deps.tools?.definitions().map((tool) => tool.name) ?? [];
      const knowledge = knowledgeSection(state, knowledgeTokens);
      const system =
        plannerInstructions(maxSteps, tools) +
        (knowledge === '' ? '' : `\n\nWhat the agent already knows:\n${knowledge}`);
      // A client's conversation (Chat Completions) reaches the planner as messages in their roles, as it reaches think.
      const messages: ChatMessage[] = [
        { role: 'system', content: withClientSystem(system, state.input) },
        ...clientConversation(state.input).turns,
        { role: 'user', content: state.input.task },
      ];
      const read = (text: string): Parsed<ParsedPlan> => {
        const json = readJson(text);
        return json.ok ? planFromJson(json.value, { maxSteps, tools }) : json;
      };
      const answer = await askWithRepairs(model, state, ctx, {
        stage: 'plan',
        messages,
        read,
        maxRepairs,
        ...temperatureOf(options),
      });
      let source: PlanSlot['source'];
      let steps: PlanStep[];
      let reasoning: string | undefined;
      let goal = state.input.task;
      if (answer.ok) {
        source = answer.repairs === 0 ? 'planner' : 'repaired';
        steps = answer.value.steps;
        reasoning = answer.value.reasoning;
        if (answer.value.goal) goal = answer.value.goal;
      } else {
        source = 'fallback';
        steps = [{ id: 's1', description: state.input.task, dependsOn: [], status: 'pending', attempts: 0 }];
        const tries =
          answer.repairs === 0 ? 'its reply' : `${answer.repairs} repair turn${answer.repairs === 1 ? '' : 's'}`;
        ctx.emit('plan_fallback', {
          reason: `the planner gave no valid plan after ${tries} (${answer.problem}); using the task as a single step`,
        });
      }
      state.plan = newPlan(goal, steps, source, maxParallel, reasoning);
      const created = state.plan;
      state.turn = emptyTurn();
      ctx.emit('plan_created', {
        source,
        goal,
        ...(reasoning === undefined ? {} : { reasoning }),
        steps: planView(created),
        running: [],
        maxParallel,
      });
      startReadySteps(state, ctx);
      ctx.emit('plan_updated', {
        steps: planView(created),
        current: created.current < created.steps.length ? created.current + 1 : null,
        running: runningIds(created),
        reason: 'the plan started',
      });
    },
  };
}
