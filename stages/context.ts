// context (setup): reads input.task, input.options.facts and deps.tools; writes the context slot and messages; returns no signal.
import type { Stage } from '../src/engine/stage.js';
import type { RunState } from '../src/engine/state.js';
import type { ToolDefinition } from '../src/model/types.js';
import type {} from './context-slot.js';
import { defaultInstructions, renderMessages, renderSystemPrompt } from './prompts.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    context_rendered: { tools: string[]; facts: number };
  }
}

export type { ContextSlot } from './context-slot.js';

export interface ContextOptions {
  /** Replaces the default instructions at the top of the system prompt. */
  instructions?: string;
  /** Facts every run of this pipeline may rely on. */
  facts?: readonly string[];
}

export function context(options: ContextOptions = {}): Stage {
  const instructions = options.instructions ?? defaultInstructions;
  const pipelineFacts = Object.freeze([...(options.facts ?? [])]);
  // Runs with the same tool list and no facts of their own share one rendered prompt (strings are immutable).
  // The definitions are kept by element, so a tool box that changes its list in place is still noticed.
  let shared: { tools: readonly ToolDefinition[]; systemPrompt: string; names: readonly string[] } | undefined;
  return {
    name: 'context',
    execute(state, ctx) {
      const tools = ctx.deps.tools?.definitions() ?? [];
      const ownFacts = inputFacts(state);
      const facts = pipelineFacts.concat(ownFacts);
      if (ownFacts.length > 0 || shared === undefined || !sameDefinitions(shared.tools, tools)) {
        const rendered = { tools: [...tools], systemPrompt: renderSystemPrompt(instructions, tools, facts), names: tools.map((tool) => tool.name) };
        if (ownFacts.length === 0) shared = rendered;
        state.context = { systemPrompt: rendered.systemPrompt, tools: rendered.names.slice(), facts };
      } else {
        state.context = { systemPrompt: shared.systemPrompt, tools: shared.names.slice(), facts };
      }
      state.messages = renderMessages(state);
      state.turn = { toolCalls: [], results: [] };
      ctx.emit('context_rendered', { tools: state.context.tools, facts: facts.length });
    },
  };
}

function sameDefinitions(kept: readonly ToolDefinition[], current: readonly ToolDefinition[]): boolean {
  return kept.length === current.length && kept.every((definition, index) => definition === current[index]);
}

function inputFacts(state: RunState): string[] {
  const facts = state.input.options?.facts;
  return Array.isArray(facts) ? facts.filter((fact): fact is string => typeof fact === 'string' && fact.trim() !== '') : [];
}
