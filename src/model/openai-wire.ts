// Our ChatRequest to Chat Completions parameters and back: messages, tools, tool choice, response format, finish reasons.
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { renderTextProtocol } from './text-tool-protocol.js';
import { isStrictCompatible, jsonSchemaOf, structuredOutputInstructions } from './structured-output.js';
import { usageFromServer, type ServerUsage } from './usage-estimate.js';
import type { JsonObject } from '../common/json.js';
import {
  currentTurnStart,
  detailsOf,
  legacyFunctionCall,
  notText,
  readParts,
  replayFieldsOf,
  replayFor,
  splitThinkTags,
  type ReasoningFields,
} from './openai-reasoning.js';
import {
  ModelError,
  type ChatMessage,
  type ChatRequest,
  type FinishReason,
  type ToolCall,
  type ToolChoice,
} from './types.js';

export interface WireSettings {
  model: string;
  temperature?: number;
  toolProtocol: 'native' | 'text';
  sendToolChoice: boolean;
  /** 'json_schema' sends response_format; 'prompt' asks for JSON in the system prompt. */
  structuredOutput: 'json_schema' | 'prompt';
  /** OpenAI wants max_completion_tokens; most other servers only know max_tokens. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** The name this server's replies carry in `replay` (ReasoningReplay.provider): only those items are sent back. */
  replayProvider: string;
  /** OpenAI's prompt_cache_key, sent when set (other servers may refuse a field they do not know). */
  promptCacheKey?: string;
}

/** One model turn as read from the wire, before protocol parsing and usage estimation. */
export interface WireTurn {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage?: ReturnType<typeof usageFromServer>;
  model?: string;
  /** The reply's readable reasoning, when the server sent any. */
  reasoning?: string;
  /** Fields of the assistant message this server needs back on the next request (reasoning_content...). */
  replayFields?: JsonObject;
}

function toWireMessage(message: ChatMessage, replay: JsonObject): ChatCompletionMessageParam {
  switch (message.role) {
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          // A call written with no arguments at all means an empty object: some servers (DashScope) refuse "".
          function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
        })),
        ...replay,
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/** Wire messages; the current turn's tool-call messages carry back what their server asked to have back. */
function toWireMessages(messages: ChatMessage[], replayProvider: string): ChatCompletionMessageParam[] {
  const turnStart = currentTurnStart(messages);
  const none: JsonObject = {};
  return messages.map((message, index) =>
    toWireMessage(message, index >= turnStart ? replayFor(message, replayProvider) : none),
  );
}

function toWireToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** Adds text to the first system message, or puts a system message first. */
function withSystemText(messages: ChatMessage[], text: string): ChatMessage[] {
  const index = messages.findIndex((message) => message.role === 'system');
  if (index === -1) return [{ role: 'system', content: text }, ...messages];
  return messages.map((message, position) =>
    position === index ? { role: 'system', content: `${message.content}\n\n${text}` } : message,
  );
}

export function toChatParams(request: ChatRequest, settings: WireSettings): ChatCompletionCreateParamsBase {
  // "none" without a way to say so (text protocol, tool_choice omitted): the only way is to send no tools.
  const cannotSayNone = settings.toolProtocol === 'text' || !settings.sendToolChoice;
  const tools = request.toolChoice === 'none' && cannotSayNone ? [] : (request.tools ?? []);
  let messages = settings.toolProtocol === 'text' ? renderTextProtocol(request.messages, tools) : request.messages;
  if (request.responseFormat !== undefined && settings.structuredOutput === 'prompt') {
    messages = withSystemText(messages, structuredOutputInstructions(request.responseFormat));
  }
  const params: ChatCompletionCreateParamsBase = {
    model: settings.model,
    messages:
      settings.toolProtocol === 'text'
        ? messages.map((message) => toWireMessage(message, {}))
        : toWireMessages(messages, settings.replayProvider),
  };
  const temperature = request.temperature ?? settings.temperature;
  if (temperature !== undefined) params.temperature = temperature;
  if (settings.promptCacheKey !== undefined) params.prompt_cache_key = settings.promptCacheKey;
  if (request.maxOutputTokens !== undefined) params[settings.maxTokensField] = request.maxOutputTokens;
  if (settings.toolProtocol === 'native' && tools.length > 0) {
    params.tools = tools.map((tool): ChatCompletionTool => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        ...(tool.strict ? { strict: true } : {}),
      },
    }));
    if (settings.sendToolChoice && request.toolChoice !== undefined)
      params.tool_choice = toWireToolChoice(request.toolChoice);
  }
  if (request.responseFormat !== undefined && settings.structuredOutput === 'json_schema') {
    const schema = jsonSchemaOf(request.responseFormat);
    params.response_format = {
      type: 'json_schema',
      json_schema: { name: request.responseFormat.name, schema, strict: isStrictCompatible(schema) },
    };
  }
  return params;
}

/** Finish reasons differ between servers; tool calls count even when the server says "stop" (Ollama, llama.cpp). */
export function normaliseFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  let reason: FinishReason;
  if (raw === 'stop' || raw === 'eos' || raw === 'end_turn' || raw === 'stop_sequence') reason = 'stop';
  else if (raw === 'tool_calls' || raw === 'function_call' || raw === 'tool_use') reason = 'tool_calls';
  else if (raw === 'length' || raw === 'max_tokens') reason = 'length';
  else if (raw === 'content_filter') reason = 'content_filter';
  else reason = 'other';
  if (hasToolCalls && reason !== 'length' && reason !== 'content_filter') return 'tool_calls';
  return reason;
}

interface WireCompletion {
  model?: unknown;
  usage?: ServerUsage | null;
  choices?: Array<{
    finish_reason?: string | null;
    message?: ReasoningFields & {
      refusal?: string | null;
      tool_calls?: Array<{
        id?: string;
        type?: string;
        function?: { name?: string; arguments?: unknown };
        custom?: { name?: string; input?: string };
      }> | null;
      function_call?: unknown;
    };
  }>;
}

/** Reads a non-streamed completion body, which may come from a server that only looks like OpenAI. */
export function readCompletion(body: unknown, url: string, newId: () => string): WireTurn {
  const completion = body as WireCompletion | null;
  const choice =
    typeof completion === 'object' && completion !== null && Array.isArray(completion.choices)
      ? completion.choices[0]
      : undefined;
  const message = choice?.message;
  if (message === undefined || message === null) {
    const shape = typeof body === 'string' ? 'text instead of JSON' : 'JSON without choices[0].message';
    throw new ModelError('invalid_response', `${url} sent ${shape}: not a chat completion`, { retryable: false });
  }
  const rawCalls = message.tool_calls ?? [];
  if (!Array.isArray(rawCalls)) throw notText(url, 'message.tool_calls', rawCalls);
  const toolCalls = rawCalls.map((call) => ({
    id: typeof call?.id === 'string' && call.id !== '' ? call.id : newId(),
    name: textOf(call?.function?.name ?? call?.custom?.name, url, 'a tool call name'),
    arguments: argumentsText(call?.function?.arguments ?? call?.custom?.input, url),
  }));
  // The legacy function_call (before tool_calls existed) is a tool call like any other.
  const legacy = legacyFunctionCall(message.function_call);
  // Snowflake sends an empty one ({name: '', arguments: ''}) with every reply: that is no call.
  if (toolCalls.length === 0 && typeof legacy?.name === 'string' && legacy.name !== '')
    toolCalls.push({
      id: newId(),
      name: legacy.name,
      arguments: argumentsText(legacy!.arguments, url),
    });
  const parts = splitThinkTags(readParts(message, url, 'message.content'));
  const turn: WireTurn = {
    content: parts.text !== '' ? parts.text : textOf(message.refusal, url, 'message.refusal'),
    toolCalls,
    finishReason: typeof choice!.finish_reason === 'string' ? choice!.finish_reason : null,
  };
  if (parts.reasoning !== '') turn.reasoning = parts.reasoning;
  const replay = replayFieldsOf(
    typeof message.reasoning_content === 'string' ? message.reasoning_content : '',
    detailsOf(message.reasoning_details),
  );
  if (replay !== undefined) turn.replayFields = replay;
  const usage = completion?.usage ? usageFromServer(completion.usage) : undefined;
  if (usage !== undefined) turn.usage = usage;
  if (typeof completion?.model === 'string') turn.model = completion.model;
  return turn;
}

/** Tool-call arguments: text as the API says, but servers for small open models often send the object itself. */
function argumentsText(value: unknown, url: string): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return JSON.stringify(value);
  return textOf(value, url, 'tool call arguments');
}

/** A text field of a reply: missing is empty; anything but a string is an invalid reply, never coerced. */
export function textOf(value: unknown, url: string, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw notText(url, field, value);
  return value;
}
