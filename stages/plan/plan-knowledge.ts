// What the agent already knows, for the planner's and replanner's prompts: the run's facts, the session's durable
// facts (spotlighted, as the executor sees them) and the session's history, under their own share of tokens. Not a stage: plan and replan use it.
import type { RunState } from '../../src/engine/state.js';
import { renderFacts, renderHistory } from '../../src/sessions/render.js';
import { sessionFactsSection } from '../shared/spotlight.js';
import type {} from '../shared/context-slot.js';
import type {} from '../session/history-slot.js';

/** About four characters a token, as the usage estimate counts. */
const charactersPerToken = 4;

/** The section to add to the planner's system prompt, or '' when the agent knows nothing yet or the share is 0. */
export function knowledgeSection(state: RunState, budgetTokens: number): string {
  let room = budgetTokens * charactersPerToken;
  if (room <= 0) return '';
  const parts: string[] = [];
  const fitting = (facts: readonly string[]): string[] => {
    const kept: string[] = [];
    for (const fact of facts) {
      if (fact.length + 3 > room) break;
      kept.push(fact);
      room -= fact.length + 3;
    }
    return kept;
  };
  const facts = fitting(state.context?.facts ?? []);
  if (facts.length > 0) parts.push(`Facts you can rely on:\n${facts.map((fact) => `- ${fact}`).join('\n')}`);
  const session = state.history;
  const saved = fitting(renderFacts(session?.facts ?? []));
  if (saved.length > 0) parts.push(sessionFactsSection(state, saved));
  const history = session === undefined ? '' : renderHistory(session.summary, session.turns);
  // The newest turns matter most ("add 10 to that"): an over-long history keeps its end.
  if (history !== '' && room > 80)
    parts.push(history.length <= room ? history : `[earlier turns left out]\n${history.slice(history.length - room)}`);
  return parts.join('\n\n');
}
