// Our ChatRequest to Anthropic Messages parameters and a Message back: tool_use/tool_result, signed thinking blocks
// sent back verbatim, and cache_control breakpoints on the system prompt, the tools and the newest message.
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsBase,
  MessageParam,
  ToolChoice as AnthropicToolChoice,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { JsonValue } from '../common/json.js';
import { argumentsObject, argumentsText, finishWith, type Reply } from './native-model.js';
import { structuredOutputInstructions } from './structured-output.js';
import type { ChatMessage, ChatRequest, ChatUsage, FinishReason, ToolCall, ToolChoice } from './types.js';

/** The tag of what this adapter keeps for the next request (ReasoningReplay.provider). */
export const anthropicReplay = 'anthropic';

export interface AnthropicWireSettings {
  model: string;
  /** max_tokens when the request names none (the API requires one). */
  maxTokens: number;
  temperature?: number;
  /** Extended thinking's budget; absent: no thinking asked for. */
  thinkingBudget?: number;
  /** false: no cache_control breakpoints. */
  promptCaching: boolean;
}

const breakpoint = { type: 'ephemeral' } as const;

/** The content blocks of one of our messages (tool results become the user's tool_result blocks). */
function blocksOf(message: Exclude<ChatMessage, { role: 'system' }>): ContentBlockParam[] {
  if (message.role === 'tool')
    return [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }];
  if (message.role === 'user') return [{ type: 'text', text: message.content }];
  // Signed thinking comes first, as the API wants it before the tool_use blocks it led to.
  const kept =
    message.replay?.provider === anthropicReplay ? (message.replay.items as unknown as ContentBlockParam[]) : [];
  const text: ContentBlockParam[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
  const calls: ContentBlockParam[] = (message.toolCalls ?? []).map((call) => ({
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: argumentsObject(call.arguments),
  }));
  return [...kept, ...text, ...calls];
}

/** Our messages as alternating user/assistant turns (consecutive tool results and user text join one user turn). */
export function toAnthropicMessages(messages: ChatMessage[]): { system: string[]; turns: MessageParam[] } {
  const system: string[] = [];
  const turns: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      system.push(message.content);
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    if (blocks.length === 0) blocks.push({ type: 'text', text: ' ' });
    const last = turns.at(-1);
    if (last !== undefined && last.role === role) (last.content as ContentBlockParam[]).push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return { system, turns };
}

function toolChoiceOf(choice: ToolChoice): AnthropicToolChoice {
  if (choice === 'required') return { type: 'any' };
  if (choice === 'auto' || choice === 'none') return { type: choice };
  return { type: 'tool', name: choice.name };
}

export function toAnthropicParams(request: ChatRequest, settings: AnthropicWireSettings): MessageCreateParamsBase {
  const { system, turns } = toAnthropicMessages(request.messages);
  if (request.responseFormat !== undefined) system.push(structuredOutputInstructions(request.responseFormat));
  const cache = settings.promptCaching;
  const tools: Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Tool['input_schema'],
  }));
  // Three breakpoints (of four allowed): system, tools, and the newest message, so each turn reads the last one's prefix.
  if (cache && tools.length > 0) tools[tools.length - 1] = { ...tools.at(-1)!, cache_control: breakpoint };
  const newest = turns.at(-1)?.content as ContentBlockParam[] | undefined;
  const lastBlock = newest?.at(-1);
  if (cache && newest !== undefined && lastBlock !== undefined && cacheable(lastBlock))
    newest[newest.length - 1] = { ...lastBlock, cache_control: breakpoint } as ContentBlockParam;
  const params: MessageCreateParamsBase = {
    model: settings.model,
    max_tokens: request.maxOutputTokens ?? settings.maxTokens,
    messages: turns,
  };
  if (system.length > 0)
    params.system = [{ type: 'text', text: system.join('\n\n'), ...(cache && { cache_control: breakpoint }) }];
  if (tools.length > 0) params.tools = tools;
  if (request.toolChoice !== undefined && tools.length > 0) params.tool_choice = toolChoiceOf(request.toolChoice);
  const temperature = request.temperature ?? settings.temperature;
  if (settings.thinkingBudget !== undefined)
    params.thinking = { type: 'enabled', budget_tokens: settings.thinkingBudget };
  // Not in the SDK's types (newer models reject it): sent only when set, for the models that take it.
  else if (temperature !== undefined) Object.assign(params, { temperature });
  return params;
}

/** Thinking blocks cannot carry cache_control; every other block we send can. */
function cacheable(block: ContentBlockParam): boolean {
  return block.type !== 'thinking' && block.type !== 'redacted_thinking';
}

const stopReasons: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

/** Anthropic's usage in our one meaning: input counts cache reads and writes; cached input is the reads. */
export function usageOf(usage: Partial<Message['usage']> | undefined): ChatUsage {
  const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
  const record = (usage ?? {}) as Record<string, unknown> & { iterations?: unknown; output_tokens_details?: unknown };
  // With server-side compaction the top level leaves out the compaction's own call: the billed total is every iteration's.
  const parts = Array.isArray(record.iterations) && record.iterations.length > 0 ? record.iterations : [record];
  const total = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
  for (const part of parts as Array<Record<string, unknown>>) {
    total.cacheRead += count(part.cache_read_input_tokens);
    total.cacheWrite += count(part.cache_creation_input_tokens);
    total.input +=
      count(part.input_tokens) + count(part.cache_read_input_tokens) + count(part.cache_creation_input_tokens);
    total.output += count(part.output_tokens);
  }
  const details = record.output_tokens_details as { thinking_tokens?: unknown } | undefined;
  const read: ChatUsage = {
    inputTokens: total.input,
    outputTokens: total.output,
    cachedInputTokens: total.cacheRead,
    reasoningTokens: count(details?.thinking_tokens),
    estimated: false,
  };
  // Cache writes are billed above the input rate (1.25x for 5 minutes): kept apart so cost can price them.
  if (total.cacheWrite > 0) read.cacheWriteInputTokens = total.cacheWrite;
  return read;
}

/** A Message as our reply: text, tool_use calls, thinking as reasoning, signed and redacted thinking kept for replay. */
export function readMessage(message: Message, modelName: string): Reply {
  let content = '';
  const reasoning: string[] = [];
  const kept: JsonValue[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') content += block.text;
    else if (block.type === 'tool_use')
      toolCalls.push({ id: block.id, name: block.name, arguments: argumentsText(block.input) });
    else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      if (block.type === 'thinking') reasoning.push(block.thinking);
      kept.push(block as unknown as JsonValue);
    }
  }
  const reason = stopReasons[message.stop_reason ?? ''] ?? (message.stop_reason ? 'other' : 'stop');
  const reply: Reply = {
    content,
    toolCalls,
    finishReason: finishWith(reason, toolCalls.length),
    usage: usageOf(message.usage),
    model: message.model || modelName,
  };
  if (reasoning.length > 0) reply.reasoning = reasoning.join('\n\n');
  if (kept.length > 0) reply.replay = { provider: anthropicReplay, items: kept };
  return reply;
}
