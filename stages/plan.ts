// plan (setup): reads input.task and deps.tools; writes the plan slot, messages (the first step's brief), usage, modelFailure; returns no signal.
import { z } from 'zod';
import type { Stage, StageContext } from '../src/engine/stage.js';
import { addUsage, type RunState } from '../src/engine/state.js';
import type { ChatMessage, ChatModel, ChatRequest } from '../src/model/types.js';
import { stepStatuses, type PlanSlot, type PlanStep } from './plan-slot.js';
import { recordModelFailure } from './model-failure.js';
import { planView, requireModel, startPlan } from './plan-steps.js';
import { plannerInstructions, renderMessages } from './prompts.js';
import { parseStructured } from './structured-output.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    plan_created: { source: 'planner' | 'repaired' | 'fallback'; steps: Array<{ description: string; status: string }> };
    plan_repair: { problem: string };
    plan_fallback: { reason: string };
  }
}

export { stepStatuses, type StepStatus, type PlanStep, type StepResult, type PlanSlot } from './plan-slot.js';

export interface PlanOptions {
  /** Most steps a plan may have (default 8). */
  maxSteps?: number;
  temperature?: number;
}

/** The planner's structured output: 1 to `maxSteps` steps, each a description and a status. */
export function planSchema(maxSteps: number) {
  const step = z.object({ description: z.string().trim().min(1), status: z.enum(stepStatuses) });
  return z.object({ steps: z.array(step).min(1).max(maxSteps) });
}

export function plan(options: PlanOptions = {}): Stage {
  const maxSteps = options.maxSteps ?? 8;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`plan: maxSteps must be a positive integer, got ${maxSteps}`);
  const schema = planSchema(maxSteps);
  const responseFormat = { name: 'plan', schema };
  return {
    name: 'plan',
    async execute(state, ctx) {
      const model = requireModel(ctx, 'plan');
      const tools = ctx.deps.tools?.definitions().map((tool) => tool.name) ?? [];
      const messages: ChatMessage[] = [
        { role: 'system', content: plannerInstructions(maxSteps, tools) },
        { role: 'user', content: state.input.task },
      ];
      const ask = (conversation: ChatMessage[]) =>
        callPlanner(model, state, ctx, { messages: conversation, responseFormat, purpose: 'plan', ...temperatureOf(options) });

      let source: PlanSlot['source'] = 'planner';
      let reply = await ask(messages);
      let parsed = reply.ok ? parseStructured(reply.response, schema) : { ok: false as const, problem: reply.problem };
      if (!parsed.ok) {
        ctx.emit('plan_repair', { problem: parsed.problem });
        const repair: ChatMessage[] = [
          ...messages,
          { role: 'assistant', content: reply.ok ? reply.response.content : '' },
          { role: 'user', content: `That reply is not a valid plan: ${parsed.problem}\nReply again with only the JSON plan.` },
        ];
        source = 'repaired';
        reply = await ask(repair);
        parsed = reply.ok ? parseStructured(reply.response, schema) : { ok: false as const, problem: reply.problem };
      }
      let steps: PlanStep[];
      if (parsed.ok) {
        steps = parsed.value.steps.map((step) => ({ description: step.description, status: 'pending' as const }));
      } else {
        source = 'fallback';
        steps = [{ description: state.input.task, status: 'pending' }];
        ctx.emit('plan_fallback', { reason: `the planner gave no valid plan after one repair attempt (${parsed.problem}); using the task as a single step` });
      }
      const created = startPlan(state, steps, source);
      state.messages = renderMessages(state);
      state.turn = { toolCalls: [], results: [] };
      ctx.emit('plan_created', { source, steps: planView(created) });
    },
  };
}

type PlannerReply = { ok: true; response: Awaited<ReturnType<ChatModel['chat']>> } | { ok: false; problem: string };

/** One planner call; a reply the adapter itself could not validate counts as invalid output, other errors propagate. */
async function callPlanner(model: ChatModel, state: RunState, ctx: StageContext, request: ChatRequest): Promise<PlannerReply> {
  try {
    const response = await model.chat(request, ctx.signalIfAbortable);
    addUsage(state.usage, response.usage);
    return { ok: true, response };
  } catch (error) {
    if (isInvalidResponse(error)) return { ok: false, problem: (error as Error).message };
    throw recordModelFailure(state, 'plan', error);
  }
}

export function isInvalidResponse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { kind?: unknown }).kind === 'invalid_response';
}

export function temperatureOf(options: { temperature?: number }): { temperature?: number } {
  return options.temperature === undefined ? {} : { temperature: options.temperature };
}
