// What the offline model reads from a request: the brief, the results of its earlier calls, the session's latest
// answer and the tools offered. Its own file so offline-model.ts keeps to the rules that decide the reply.
import { lastNumber } from './offline-arithmetic.js';
import type { ChatMessage, ChatRequest, HistoryPart } from './types.js';

/** Tools whose parameters are an agent's (`{ task }`). */
export function offeredAgents(request: ChatRequest): string[] {
  return (request.tools ?? [])
    .filter((tool) => {
      const properties = (tool.parameters as { properties?: Record<string, unknown> } | undefined)?.properties;
      return properties !== undefined && 'task' in properties;
    })
    .map((tool) => tool.name);
}

/** Whether the calculator is among the request's tools. */
export function offersCalculator(request: ChatRequest): boolean {
  return (request.tools ?? []).some((tool) => tool.name === 'calculator');
}

/**
 * The number in the session's latest answer, read from the records the history messages carry (`history`), never
 * from their text: the latest turn that completed, its answer's first line (what follows a line break is not part of
 * the result), or, before any, the last "Answer:" of the summary of folded turns.
 */
export function sessionAnswer(messages: readonly ChatMessage[]): string | undefined {
  const latest = historyParts(messages)
    .filter((part) => part.part === 'summary' || (part.part === 'answer' && part.completed))
    .at(-1);
  if (latest?.part === 'summary') {
    const answer = [...latest.summary.matchAll(/\banswer: (.+)$/gim)].at(-1)?.[1];
    return answer === undefined ? undefined : lastNumber(answer);
  }
  return latest?.part === 'answer' ? lastNumber(latest.answer.trim().split('\n')[0]!) : undefined;
}

function historyParts(messages: readonly ChatMessage[]): HistoryPart[] {
  return messages.flatMap((message) =>
    'history' in message && message.history !== undefined ? [message.history] : [],
  );
}

/** The "Result: ..." lines of a brief: what the earlier steps found. */
export function resultLines(text: string): string[] {
  return [...text.matchAll(/^Result: (.+)$/gm)].map((match) => match[1]!.trim());
}

/** The task or brief of this request: the first user message that is not one of the session's earlier turns. */
export function currentUserText(messages: readonly ChatMessage[]): string {
  return messages.find((message) => message.role === 'user' && message.history === undefined)?.content ?? '';
}

/** Every tool result in the conversation, in order, with the expression that was sent for it. */
export function toolResults(messages: readonly ChatMessage[]): Array<{ content: string; expression?: string }> {
  const expressions = new Map<string, string | undefined>();
  const results: Array<{ content: string; expression?: string }> = [];
  for (const message of messages) {
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) expressions.set(call.id, expressionOf(call.arguments));
    if (message.role !== 'tool') continue;
    const expression = expressions.get(message.toolCallId);
    results.push(expression === undefined ? { content: message.content } : { content: message.content, expression });
  }
  return results;
}

function expressionOf(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    const expression =
      typeof value === 'object' && value !== null ? (value as { expression?: unknown }).expression : undefined;
    return typeof expression === 'string' ? expression : undefined;
  } catch {
    return undefined;
  }
}
