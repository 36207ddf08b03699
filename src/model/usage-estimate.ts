// Token usage: read the server's numbers, or estimate them with gpt-tokenizer when the server sent none.
import { conversationTokens, loadTokenCounter, messageOverheadTokens } from './token-count.js';
import type { ChatMessage, ChatUsage, ToolCall, ToolDefinition } from './types.js';

/** The `usage` object of a Chat Completions reply (only the fields we read), with the names other servers use. */
export interface ServerUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's count of cache reads. */
  prompt_cache_hit_tokens?: number | null;
  /** Moonshot's. */
  cached_tokens?: number | null;
}

/**
 * Converts server usage to one meaning across servers: inputTokens every input token billed, cachedInputTokens the part
 * served from the cache, outputTokens every output token including reasoning (xAI reports reasoning outside
 * completion_tokens, Gemini leaves its thinking out of
 * every count but the total: the total says so). Counts that are not whole numbers >= 0 (a string, a negative, NaN) make the
 * usage unreported (undefined), so it is estimated.
 */
export function usageFromServer(usage: ServerUsage): ChatUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const inputTokens = count(usage.prompt_tokens);
  const outputTokens = count(usage.completion_tokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const reported = count(usage.completion_tokens_details?.reasoning_tokens) ?? 0;
  const total = count(usage.total_tokens) ?? 0;
  // A total above input + output is output counted elsewhere: xAI's reasoning, Gemini's unreported thinking.
  const outside = total > inputTokens + outputTokens ? total - inputTokens - outputTokens : 0;
  const reasoningTokens = Math.max(reported, outside);
  const cached =
    count(usage.prompt_tokens_details?.cached_tokens) ||
    count(usage.prompt_cache_hit_tokens) ||
    count(usage.cached_tokens) ||
    0;
  return {
    inputTokens,
    outputTokens: outputTokens + outside,
    cachedInputTokens: Math.min(cached, inputTokens),
    reasoningTokens,
    estimated: false,
  };
}

/** A token count as reported: missing is 0; anything but a whole number >= 0 is undefined (not a count). */
function count(value: unknown): number | undefined {
  if (value === undefined || value === null) return 0;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** An estimate with the o200k tokenizer over what was sent and received. Marked `estimated: true`. */
export async function estimateUsage(
  sent: { messages: ChatMessage[]; tools?: ToolDefinition[] },
  received: { content: string; toolCalls: ToolCall[] },
): Promise<ChatUsage> {
  const count = await loadTokenCounter();
  let inputTokens = conversationTokens(count, sent.messages);
  if (sent.tools !== undefined && sent.tools.length > 0) inputTokens += count(JSON.stringify(sent.tools));
  let outputTokens = count(received.content);
  for (const call of received.toolCalls)
    outputTokens += messageOverheadTokens + count(call.name) + count(call.arguments);
  return { inputTokens, outputTokens, cachedInputTokens: 0, reasoningTokens: 0, estimated: true };
}

export function sumUsage(first: ChatUsage, second: ChatUsage): ChatUsage {
  const sum: ChatUsage = {
    inputTokens: first.inputTokens + second.inputTokens,
    outputTokens: first.outputTokens + second.outputTokens,
    cachedInputTokens: first.cachedInputTokens + second.cachedInputTokens,
    reasoningTokens: first.reasoningTokens + second.reasoningTokens,
    estimated: first.estimated || second.estimated,
  };
  const written = (first.cacheWriteInputTokens ?? 0) + (second.cacheWriteInputTokens ?? 0);
  if (written > 0) sum.cacheWriteInputTokens = written;
  return sum;
}
