// context (setup): reads input.task, input.options.facts, the history slot and deps.tools; writes the context slot, messages and (with session facts) the spotlight slot; returns no signal.
import type { Stage } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolDefinition } from '../../src/model/types.js';
import type {} from '../shared/context-slot.js';
import type {} from '../session/history-slot.js';
import { defaultInstructions, renderMessages, renderSystemPrompt } from '../shared/prompts.js';
import { selectFacts } from '../../src/sessions/fact-selection.js';
import { sessionFactsSection } from '../shared/spotlight.js';

import type { RunEvents } from '../../src/engine/stage.js';
import { emptyTurn } from '../shared/turn.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    context_rendered: { tools: string[]; facts: number; sessionFacts?: number; turns?: number };
  }
}

export type { ContextSlot } from '../shared/context-slot.js';

export interface ContextOptions {
  /** Replaces the default instructions at the top of the system prompt. */
  instructions?: string;
  /** Facts every run of this pipeline may rely on. */
  facts?: readonly string[];
  /** Tokens the session's durable facts may take in the prompt (default 1,000); past it the most relevant are chosen. */
  factBudgetTokens?: number;
}

export function context(options: ContextOptions = {}): Stage {
  const instructions = options.instructions ?? defaultInstructions;
  const pipelineFacts = Object.freeze([...(options.facts ?? [])]);
  const factBudget = options.factBudgetTokens ?? 1_000;
  if (!(Number.isInteger(factBudget) && factBudget >= 0))
    throw new RangeError(`context: factBudgetTokens must be a whole number, 0 or more, got ${factBudget}`);
  // Runs with the same tool list and no facts of their own share one rendered prompt (strings are immutable).
  // The definitions are kept by element, so a tool box that changes its list in place is still noticed.
  let shared: { tools: readonly ToolDefinition[]; systemPrompt: string; names: readonly string[] } | undefined;
  const render = (state: RunState, tools: readonly ToolDefinition[], facts: string[], section: string) => {
    state.context = {
      systemPrompt: renderSystemPrompt(instructions, tools, facts) + (section === '' ? '' : `\n\n${section}`),
      tools: tools.map((tool) => tool.name),
      facts,
    };
  };
  const finish = (
    state: RunState,
    emit: (type: 'context_rendered', data: RunEvents['context_rendered']) => void,
    sessionFacts: number,
  ) => {
    state.messages = renderMessages(state);
    state.turn = emptyTurn();
    emit('context_rendered', {
      tools: state.context!.tools,
      facts: state.context!.facts.length,
      ...(state.history ? { sessionFacts, turns: state.history.turns.length } : {}),
    });
  };
  return {
    name: 'context',
    // Reads the tools' definitions only to list them: it runs none.
    needs: {},
    execute(state, ctx) {
      const tools = ctx.deps.tools?.definitions() ?? [];
      const ownFacts = inputFacts(state);
      const facts = pipelineFacts.concat(ownFacts);
      const session = state.history;
      if (session !== undefined) {
        // Only a session with more fact text than the budget pays for the tokenizer. Its turns are messages (renderMessages).
        return selectFacts(session.facts, state.input.task, factBudget).then((chosen) => {
          render(state, tools, facts, sessionFactsSection(state, chosen));
          finish(state, (type, data) => ctx.emit(type, data), chosen.length);
        });
      }
      if (ownFacts.length > 0 || shared === undefined || !sameDefinitions(shared.tools, tools)) {
        render(state, tools, facts, '');
        if (ownFacts.length === 0)
          shared = {
            tools: [...tools],
            systemPrompt: state.context!.systemPrompt,
            names: state.context!.tools.slice(),
          };
      } else {
        state.context = { systemPrompt: shared.systemPrompt, tools: shared.names.slice(), facts };
      }
      finish(state, (type, data) => ctx.emit(type, data), 0);
    },
  };
}

function sameDefinitions(kept: readonly ToolDefinition[], current: readonly ToolDefinition[]): boolean {
  return kept.length === current.length && kept.every((definition, index) => definition === current[index]);
}

function inputFacts(state: RunState): string[] {
  const facts = state.input.options?.facts;
  return Array.isArray(facts)
    ? facts.filter((fact): fact is string => typeof fact === 'string' && fact.trim() !== '')
    : [];
}
