// What a messy-model scenario is, and the replies scenarios are built from (a good call, the answer, raw bodies).
import type { RunResult } from '../../src/engine/runner.js';
import type { ChatServer, ServerToolCall } from '../support/chat-server.js';

export const good = (id = 'call_ok'): ServerToolCall => ({
  id,
  name: 'calculator',
  arguments: '{"expression":"17 * 23 + 4"}',
});
export const answer = { content: '17 * 23 + 4 = 395.' };
export const raw = (message: Record<string, unknown>, finishReason = 'tool_calls') =>
  JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finishReason }],
  });
export const rawCall = (name: string, args: unknown, id = 'call_raw') =>
  raw({ tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] });
export const action = (json: string) => ({ content: `Action: ${json}` });
export const textCall = '{"type":"tool","name":"calculator","args":{"expression":"17 * 23 + 4"}}';
export const textFinish = action('{"type":"finish","answer":"17 * 23 + 4 = 395."}');

export interface Expected {
  status: RunResult['status'];
  kind?: string | RegExp;
  answer?: RegExp;
  /** Repair turns the run made. */
  repairs?: number;
}

export interface Scenario {
  name: string;
  arrange(server: ChatServer): void;
  expected: Expected;
  text?: boolean;
  /** Nobody listens, so requests are not streamed (the scenario sends a raw JSON body). */
  unobserved?: boolean;
  modelName?: string;
  maxIterations?: number;
}

export const done: Expected = { status: 'completed', kind: 'completed', answer: /395/ };
export const repaired = (repairs: number): Expected => ({ ...done, repairs });
