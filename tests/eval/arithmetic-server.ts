// A loopback model that does arithmetic the way a model with and without a calculator would: with tools offered it
// calls `calculator` and repeats its result; with none it answers from "memory", right only for additions.
import type { ChatServer, RecordedRequest } from '../support/chat-server.js';
import { sendReply } from '../support/chat-server.js';
import { evaluateArithmetic } from '../support/stage-tools.js';

const expressionIn = (text: string): string => /-?\d+(?:\.\d+)?\s*[-+*/]\s*-?\d+(?:\.\d+)?/.exec(text)?.[0] ?? '0';

function lastUserText(request: RecordedRequest): string {
  return [...request.body.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
}

/** The reply to one request, decided from what the request holds. */
export function arithmeticReply(request: RecordedRequest): {
  content: string;
  toolCalls?: Array<{ name: string; arguments: string }>;
} {
  // A judge's request (modelJudge asks for a "verdict"): a fixed verdict naming what it judged.
  if (request.body.response_format?.json_schema?.name === 'verdict')
    return { content: JSON.stringify({ score: 0.9, reason: `judged ${request.body.messages.length} messages` }) };
  const messages = request.body.messages;
  const last = messages.at(-1);
  const expression = expressionIn(lastUserText(request));
  if (last?.role === 'tool') return { content: `${expression} = ${last.content}` };
  if ((request.body.tools?.length ?? 0) > 0)
    return { content: '', toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression }) }] };
  // From memory: additions come out right, anything else is off by a little.
  const guess = expression.includes('+') ? evaluateArithmetic(expression) : evaluateArithmetic(expression) + 7;
  return { content: `I think ${expression} is ${guess}` };
}

/** Answers the next `times` requests (default: many) with arithmeticReply, after `delayMs` each. */
export function serveArithmetic(server: ChatServer, options: { times?: number; delayMs?: number } = {}): void {
  server.handle(async (request, response) => {
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    sendReply(request, response, { ...arithmeticReply(request), usage: { input: 50, output: 10 } });
  }, options.times ?? 10_000);
}

export const arithmeticCases = [
  { id: 'add-small', task: 'What is 12 + 30?', expected: 42 },
  { id: 'add-large', task: 'What is 1200 + 34?', expected: 1234 },
  { id: 'multiply', task: 'What is 17 * 23?', expected: 391 },
  { id: 'divide', task: 'What is 144 / 16?', expected: 9 },
];

export const arithmeticJsonl = `${arithmeticCases.map((evalCase) => JSON.stringify(evalCase)).join('\n')}\n`;
