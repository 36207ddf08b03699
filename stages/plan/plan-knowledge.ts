// What the agent already knows, for the planner's and replanner's prompts: the run's facts and the session's
// history, under their own share of tokens. Not a stage: plan and replan use it.
import type { RunState } from '../../src/engine/state.js';
import { renderHistory } from '../../src/sessions/render.js';
import type {} from '../shared/context-slot.js';
import type {} from '../session/history-slot.js';

/** About four characters a token, as the usage estimate counts. */
const charactersPerToken = 4;

/** The section to add to the planner's system prompt, or '' when the agent knows nothing yet or the share is 0. */
export function knowledgeSection(state: RunState, budgetTokens: number): string {
  let room = budgetTokens * charactersPerToken;
  if (room <= 0) return '';
  const parts: string[] = [];
  const facts = state.context?.facts ?? [];
  if (facts.length > 0) {
    const lines: string[] = [];
    for (const fact of facts) {
      const line = `- ${fact}`;
      if (line.length > room) break;
      lines.push(line);
      room -= line.length + 1;
    }
    if (lines.length > 0) parts.push(`Facts you can rely on:\n${lines.join('\n')}`);
  }
  const session = state.history;
  const history = session === undefined ? '' : renderHistory(session.summary, session.turns);
  // The newest turns matter most ("add 10 to that"): an over-long history keeps its end.
  if (history !== '' && room > 80)
    parts.push(history.length <= room ? history : `[earlier turns left out]\n${history.slice(history.length - room)}`);
  return parts.join('\n\n');
}
