// The Chat Completions bodies the loopback server sends: a whole completion, and the chunks of a streamed one.
// Re-exported by chat-server.ts, where tests import them from.

/** Usage in a friendly form; `null` sends no usage at all. */
export interface ServerUsage {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

export interface ServerToolCall {
  name: string;
  arguments: string;
  id?: string;
}

export interface ReplyOptions {
  content?: string | null;
  toolCalls?: ServerToolCall[];
  /** Default: "tool_calls" when there are tool calls, otherwise "stop". */
  finishReason?: string | null;
  /** Default { input: 10, output: 5 }; null leaves usage out. */
  usage?: ServerUsage | null;
  model?: string;
  times?: number;
}

export function usageBody(usage: ServerUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
}

/** The JSON body of a non-streamed completion. */
export function completionBody(reply: ReplyOptions): Record<string, unknown> {
  const toolCalls = reply.toolCalls ?? [];
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.content === undefined ? (toolCalls.length > 0 ? null : '') : reply.content,
  };
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call, index) => ({
      id: call.id ?? `call_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const finishReason =
    reply.finishReason === undefined ? (toolCalls.length > 0 ? 'tool_calls' : 'stop') : reply.finishReason;
  const body: Record<string, unknown> = {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: reply.model ?? 'test-model',
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
  };
  const usage = reply.usage === undefined ? { input: 10, output: 5 } : reply.usage;
  if (usage !== null) body.usage = usageBody(usage);
  return body;
}

function chunkBody(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** A chunk carrying a piece of text. */
export function textChunk(text: string): Record<string, unknown> {
  return chunkBody({ content: text });
}

/** A chunk carrying a piece of tool call `index`; the first piece of a call should carry its id and name. */
export function toolCallChunk(
  index: number,
  piece: { id?: string; name?: string; arguments?: string },
): Record<string, unknown> {
  const call: Record<string, unknown> = { index };
  if (piece.id !== undefined) call.id = piece.id;
  if (piece.id !== undefined) call.type = 'function';
  const fn: Record<string, string> = {};
  if (piece.name !== undefined) fn.name = piece.name;
  fn.arguments = piece.arguments ?? '';
  call.function = fn;
  return chunkBody({ tool_calls: [call] });
}

export function finishChunk(finishReason: string): Record<string, unknown> {
  return chunkBody({}, finishReason);
}

/** The final chunk of `include_usage` streams: no choices, only usage. */
export function usageChunk(usage: ServerUsage): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'test-model',
    choices: [],
    usage: usageBody(usage),
  };
}

/** Splits a reply into small chunks: text in pieces, each tool call's arguments in pieces of `splitEvery` characters. */
export function replyChunks(reply: ReplyOptions & { splitEvery?: number }): Array<Record<string, unknown>> {
  const size = reply.splitEvery ?? 3;
  const chunks: Array<Record<string, unknown>> = [chunkBody({ role: 'assistant', content: '' })];
  const content = reply.content ?? '';
  for (let start = 0; start < content.length; start += size) chunks.push(textChunk(content.slice(start, start + size)));
  (reply.toolCalls ?? []).forEach((call, index) => {
    chunks.push(toolCallChunk(index, { id: call.id ?? `call_${index + 1}`, name: call.name, arguments: '' }));
    for (let start = 0; start < call.arguments.length; start += size) {
      chunks.push(toolCallChunk(index, { arguments: call.arguments.slice(start, start + size) }));
    }
  });
  const finishReason =
    reply.finishReason === undefined
      ? (reply.toolCalls?.length ?? 0) > 0
        ? 'tool_calls'
        : 'stop'
      : reply.finishReason;
  if (finishReason !== null) chunks.push(finishChunk(finishReason));
  const usage = reply.usage === undefined ? { input: 10, output: 5 } : reply.usage;
  if (usage !== null) chunks.push(usageChunk(usage));
  return chunks;
}
