// The text tool protocol for models without native tool calling: tools described in the system prompt, calls written as
// `Action: {"type":"tool","name":...,"args":{...}}` lines, the answer as `Action: {"type":"finish","answer":...}`.
import type { ChatMessage, ToolCall, ToolDefinition } from './types.js';

/** The instructions appended to the system prompt. */
export function describeTools(tools: ToolDefinition[]): string {
  const lines = [
    'You can use tools. To call a tool, write one line and then stop and wait for the observation:',
    'Action: {"type":"tool","name":"<tool name>","args":{<arguments as JSON>}}',
    'When you know the final answer, write:',
    'Action: {"type":"finish","answer":"<your answer>"}',
    'Write nothing after an Action line. Never write the Observation yourself.',
    '',
    'Tools:',
  ];
  for (const tool of tools)
    lines.push(`- ${tool.name}: ${tool.description}\n  arguments JSON schema: ${JSON.stringify(tool.parameters)}`);
  return lines.join('\n');
}

function actionLine(call: ToolCall): string {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = call.arguments;
  }
  return `Action: ${JSON.stringify({ type: 'tool', name: call.name, args })}`;
}

/**
 * Rewrites a conversation for a model that only reads text: tool calls become Action lines in the assistant's text, and
 * tool results become user messages (consecutive ones merged, since many chat templates require alternating roles).
 */
export function renderTextProtocol(messages: ChatMessage[], tools: ToolDefinition[]): ChatMessage[] {
  const instructions = tools.length > 0 ? describeTools(tools) : '';
  const rendered: ChatMessage[] = [];
  let systemSeen = false;
  for (const message of messages) {
    if (message.role === 'system' && !systemSeen && instructions) {
      systemSeen = true;
      rendered.push({ role: 'system', content: `${message.content}\n\n${instructions}` });
    } else if (message.role === 'assistant') {
      const actions = (message.toolCalls ?? []).map(actionLine);
      rendered.push({
        role: 'assistant',
        content: [message.content, ...actions].filter((part) => part !== '').join('\n'),
      });
    } else if (message.role === 'tool') {
      const observation = `Observation from ${message.name} (call ${message.toolCallId}):\n${message.content}`;
      const previous = rendered.at(-1);
      if (previous?.role === 'user' && previous.content.startsWith('Observation from '))
        previous.content += `\n\n${observation}`;
      else rendered.push({ role: 'user', content: observation });
    } else {
      rendered.push({ ...message });
    }
  }
  if (instructions && !systemSeen) rendered.unshift({ role: 'system', content: instructions });
  return rendered;
}

/** Reads the JSON object that starts at `start` (a `{`), respecting strings; returns its text or undefined if cut off. */
function balancedObject(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{') depth += 1;
    else if (character === '}' && --depth === 0) return text.slice(start, index + 1);
  }
  return undefined;
}

export type ParsedActions =
  | { kind: 'tools'; calls: Array<{ name: string; arguments: string }> }
  | { kind: 'finish'; answer: string }
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string; raw: string };

/**
 * Parses the Action lines of a reply. Stops at the first finish or at an Observation the model invented; tool actions
 * before a finish win (the model wrote its answer before seeing the observation).
 */
export function parseActions(text: string): ParsedActions {
  const visible = text.split(/^\s*Observation\b/m)[0] ?? '';
  const calls: Array<{ name: string; arguments: string }> = [];
  const pattern = /Action\s*:\s*/g;
  for (let match = pattern.exec(visible); match !== null; match = pattern.exec(visible)) {
    const start = visible.indexOf('{', match.index + match[0].length);
    if (start === -1)
      return { kind: 'invalid', reason: 'an Action line has no JSON object', raw: visible.slice(match.index) };
    const objectText = balancedObject(visible, start);
    if (objectText === undefined)
      return { kind: 'invalid', reason: 'an Action JSON object is cut off', raw: visible.slice(start) };
    let action: {
      type?: unknown;
      name?: unknown;
      args?: unknown;
      arguments?: unknown;
      parameters?: unknown;
      answer?: unknown;
    };
    try {
      action = JSON.parse(objectText) as typeof action;
    } catch (error) {
      return {
        kind: 'invalid',
        reason: `an Action line is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        raw: objectText,
      };
    }
    // Small models drop "type" or name the keys otherwise: {"name":..,"arguments":..} is a tool call, {"answer":..} a finish.
    if (action.type === undefined && typeof action.name === 'string') action.type = 'tool';
    if (action.type === undefined && action.answer !== undefined) action.type = 'finish';
    if (action.type === 'final' || action.type === 'answer') action.type = 'finish';
    action.args ??= action.arguments ?? action.parameters;
    if (action.type === 'finish') {
      if (calls.length > 0) break;
      return {
        kind: 'finish',
        answer: typeof action.answer === 'string' ? action.answer : JSON.stringify(action.answer ?? ''),
      };
    }
    if (action.type !== 'tool' || typeof action.name !== 'string') {
      return {
        kind: 'invalid',
        reason: 'an Action must be {"type":"tool","name":...,"args":{...}} or {"type":"finish","answer":...}',
        raw: objectText,
      };
    }
    calls.push({ name: action.name, arguments: JSON.stringify(action.args ?? {}) });
    pattern.lastIndex = start + objectText.length;
  }
  return calls.length > 0 ? { kind: 'tools', calls } : { kind: 'none' };
}
