// How a session reaches the model: earlier turns as user and assistant messages (an answer is only ever an assistant
// message's whole content, so no answer can write a line that reads as another turn), the short account of a turn's
// tool results, the history as text for budgets and the compaction brief, and the extractive summary.
import { shortText } from '../common/short-text.js';
import type { ChatMessage } from '../model/types.js';
import type { Fact, TurnRecord } from './types.js';

export const historyHeading = 'Conversation so far in this session (oldest first):';
export const summaryLabel = 'Summary of earlier turns:';
const maxToolLines = 5;
const maxToolLine = 160;

/** How the answer of a turn that did not complete begins when it is shown again. */
export const unfinishedTurnPrefix = '(This turn was ';

/** A turn's answer as it is shown again: a turn that did not complete says so, before its partial answer. */
export function turnAnswer(turn: Pick<TurnRecord, 'answer' | 'status'>): string {
  if (turn.status === undefined) return turn.answer;
  const how = turn.status === 'stopped' ? 'stopped before it finished' : `${turn.status}`;
  return turn.answer.trim() === ''
    ? `${unfinishedTurnPrefix}${how}, before any answer.)`
    : `${unfinishedTurnPrefix}${how}; its partial answer follows.)\n${turn.answer}`;
}

/** The lines of one turn, as the history text for budgets and the compaction brief shows it. */
export function turnLines(turn: Pick<TurnRecord, 'seq' | 'task' | 'answer' | 'tools' | 'status'>): string[] {
  const lines = [
    `Turn ${turn.seq} task: ${shortText(turn.task, 1_000)}`,
    `Turn ${turn.seq} answer: ${shortText(turnAnswer(turn), 2_000)}`,
  ];
  if (turn.tools.length > 0) lines.push(`Turn ${turn.seq} relied on: ${turn.tools.join('; ')}`);
  return lines;
}

/** The history section, or '' for a session with nothing in it yet. */
export function renderHistory(
  summary: string,
  turns: readonly Pick<TurnRecord, 'seq' | 'task' | 'answer' | 'tools' | 'status'>[],
): string {
  if (summary === '' && turns.length === 0) return '';
  const parts = [historyHeading];
  if (summary !== '') parts.push(`${summaryLabel}\n${summary}`);
  for (const turn of turns) parts.push(turnLines(turn).join('\n'));
  return parts.join('\n');
}

export function renderFacts(facts: readonly Pick<Fact, 'key' | 'value'>[]): string[] {
  return facts.map((fact) => `${fact.key}: ${fact.value}`);
}

/** The label of the assistant message that carries the summary of folded turns. */
export const summaryMessageLabel = 'Summary of the earlier turns of this conversation:';
/** The label of the assistant message before an answer that used tools. */
export const toolAccountLabel = 'Tool results this answer relied on:';

/**
 * The session as messages, oldest first: the summary (written by a model or extracted from answers) as an assistant
 * message; each turn as its task (user) and its answer (assistant), the tools it relied on as an assistant message
 * before the answer. Nothing of an answer is ever put in a system or user message. Each message carries the record
 * it renders (`history`), for readers that need the turns rather than their text.
 */
export function historyMessages(
  summary: string,
  turns: readonly Pick<TurnRecord, 'task' | 'answer' | 'tools' | 'status'>[],
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (summary !== '')
    messages.push({
      role: 'assistant',
      content: `${summaryMessageLabel}\n${summary}`,
      history: { part: 'summary', summary },
    });
  for (const turn of turns) {
    messages.push({ role: 'user', content: turn.task, history: { part: 'task' } });
    if (turn.tools.length > 0)
      messages.push({
        role: 'assistant',
        content: `${toolAccountLabel}\n${turn.tools.map((line) => `- ${line}`).join('\n')}`,
        history: { part: 'tools' },
      });
    messages.push({
      role: 'assistant',
      content: turnAnswer(turn),
      history: { part: 'answer', answer: turn.answer, completed: turn.status === undefined },
    });
  }
  return messages;
}

/** "calculator(12 * 12) → 144" for the run's last tool results (the observe stage keeps them), at most five, each clipped. */
export function toolAccount(
  results: readonly { tool: string; arguments: string; ok: boolean; content: string }[],
): string[] {
  return results
    .slice(-maxToolLines)
    .map((result) =>
      shortText(
        `${result.tool}(${argumentsText(result.arguments)}) → ${result.ok ? '' : 'failed: '}${result.content}`,
        maxToolLine,
      ),
    );
}

function argumentsText(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const entries = Object.values(value as Record<string, unknown>);
      if (entries.length === 1 && typeof entries[0] === 'string') return entries[0];
    }
  } catch {
    // Arguments that are not JSON are shown as written.
  }
  return text;
}

/** Without a model call: one line per folded turn after the earlier summary, the oldest lines dropped past `maxChars`. */
export function extractiveSummary(summary: string, folded: readonly TurnRecord[], maxChars: number): string {
  const lines = summary === '' ? [] : summary.split('\n');
  for (const turn of folded)
    lines.push(`- Turn ${turn.seq}: ${shortText(turn.task, 120)} Answer: ${shortText(turnAnswer(turn), 160)}`);
  while (lines.length > 1 && lines.join('\n').length > maxChars) lines.shift();
  return lines.join('\n');
}

export const compactionInstructions =
  'You keep the memory of a conversation. Merge the earlier summary and the turns of the conversation that follows into one short summary ' +
  'that keeps every result, number, name, decision and preference a later turn may need, latest values last. ' +
  'Reply with the summary only, as plain text lines.';

export const compactionRequest = 'Write the summary of the conversation above now, as the instructions say.';

/** The request for a model's summary of the folded turns: the turns as messages (answers as assistant messages), then the ask. */
export function compactionMessages(summary: string, folded: readonly TurnRecord[]): ChatMessage[] {
  return [
    { role: 'system', content: compactionInstructions },
    ...historyMessages(summary, folded),
    { role: 'user', content: compactionRequest },
  ];
}
