// context (setup): reads input.task, input.options.facts and deps.tools; writes the context slot and messages; returns no signal.
import type { Stage } from '../src/engine/stage.js';
import type { RunState } from '../src/engine/state.js';
import { defaultInstructions, renderMessages, renderSystemPrompt } from './prompts.js';

/** Working memory for the run: what the system prompt was rendered from. */
export interface ContextSlot {
  systemPrompt: string;
  tools: string[];
  /** Durable facts given with the stage options or the run input (`input.options.facts`). */
  facts: string[];
}

declare module '../src/engine/state.js' {
  interface StageSlots {
    context: ContextSlot;
  }
}

export interface ContextOptions {
  /** Replaces the default instructions at the top of the system prompt. */
  instructions?: string;
  /** Facts every run of this pipeline may rely on. */
  facts?: readonly string[];
}

export function context(options: ContextOptions = {}): Stage {
  const instructions = options.instructions ?? defaultInstructions;
  const pipelineFacts = Object.freeze([...(options.facts ?? [])]);
  return {
    name: 'context',
    async execute(state, ctx) {
      const tools = ctx.deps.tools?.definitions() ?? [];
      const facts = [...pipelineFacts, ...inputFacts(state)];
      state.context = { systemPrompt: renderSystemPrompt(instructions, tools, facts), tools: tools.map((tool) => tool.name), facts };
      state.messages = renderMessages(state);
      state.turn = { toolCalls: [], results: [] };
      ctx.emit('context_rendered', { tools: state.context.tools, facts: facts.length });
    },
  };
}

function inputFacts(state: RunState): string[] {
  const facts = state.input.options?.facts;
  return Array.isArray(facts) ? facts.filter((fact): fact is string => typeof fact === 'string' && fact.trim() !== '') : [];
}
