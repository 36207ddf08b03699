// One planner or replanner question with its repair turns: a reply that cannot be read is shown back to the model
// with the exact problem, at most `maxRepairs` times. Not a stage: plan and replan use it.
import type { StageContext } from '../../src/engine/stage.js';
import { addUsage, type RunState } from '../../src/engine/state.js';
import type { ChatMessage, ChatModel, ChatRequest } from '../../src/model/types.js';
import { recordModelFailure } from '../shared/model-failure.js';
import type { Parsed } from './plan-parse.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    plan_repair: { attempt: number; maxRepairs: number; problem: string };
  }
}

export interface Question<Value> {
  stage: 'plan' | 'replan';
  messages: ChatMessage[];
  /** Reads a reply's text; its problem is what the repair turn shows the model. */
  read: (text: string) => Parsed<Value>;
  maxRepairs: number;
  temperature?: number;
}

export type Answer<Value> =
  { ok: true; value: Value; repairs: number } | { ok: false; problem: string; repairs: number };

export async function askWithRepairs<Value>(
  model: ChatModel,
  state: RunState,
  ctx: StageContext,
  question: Question<Value>,
): Promise<Answer<Value>> {
  let conversation = question.messages;
  for (let repairs = 0; ; repairs++) {
    const request: ChatRequest = { messages: conversation, purpose: question.stage };
    if (question.temperature !== undefined) request.temperature = question.temperature;
    let text: string;
    let outcome: Parsed<Value>;
    try {
      const response = await model.chat(request, ctx.signal);
      addUsage(state.usage, response.usage);
      // A model that gave a parsed value (structured output) is read from it, else from its text.
      text = response.parsed !== undefined ? JSON.stringify(response.parsed) : response.content;
      outcome = question.read(text);
    } catch (error) {
      if (!isInvalidResponse(error)) throw recordModelFailure(state, question.stage, error);
      text = '';
      outcome = { ok: false, problem: (error as Error).message };
    }
    if (outcome.ok) return { ok: true, value: outcome.value, repairs };
    if (repairs >= question.maxRepairs) return { ok: false, problem: outcome.problem, repairs };
    ctx.emit('plan_repair', { attempt: repairs + 1, maxRepairs: question.maxRepairs, problem: outcome.problem });
    conversation = [
      ...conversation,
      { role: 'assistant', content: text },
      {
        role: 'user',
        content: `That reply could not be used: ${outcome.problem}\nReply again with only the corrected JSON.`,
      },
    ];
  }
}

export function isInvalidResponse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { kind?: unknown }).kind === 'invalid_response';
}
