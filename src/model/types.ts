// The ChatModel port: stages reach a model only through this shape (ctx.deps.model).
import { StageloopError } from '../common/stageloop-error.js';
import type { z } from 'zod';
import type { JsonObject, JsonValue } from '../common/json.js';

/** One tool call the model asked for; `arguments` is the raw text the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; history?: HistoryPart }
  | {
      role: 'assistant';
      content: string;
      toolCalls?: ToolCall[];
      history?: HistoryPart;
      /** The reply's readable reasoning (kept for the journal and `show`; sent back only through `replay`). */
      reasoning?: string;
      replay?: ReasoningReplay;
    }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/**
 * The part of a session's earlier turns a message renders, with the record it came from, so a reader that needs the
 * history (the offline model) reads the records, not the message text. Adapters never send it to a server.
 */
export type HistoryPart =
  | { part: 'summary'; summary: string }
  | { part: 'task' }
  | { part: 'tools' }
  | { part: 'answer'; answer: string; completed: boolean };

/**
 * What a reply's reasoning leaves for the provider that wrote it and needs it back verbatim on the next request
 * (DeepSeek's reasoning_content, Anthropic's signed thinking blocks, the Responses API's encrypted reasoning items).
 * An adapter sends `items` only when `provider` is its own; any other adapter ignores them.
 */
export interface ReasoningReplay {
  provider: string;
  items: JsonValue[];
}

/** A tool as the model sees it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: JsonObject;
  strict: boolean;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** A structured-output request: the reply content must be JSON matching the schema. */
export interface ResponseFormat {
  name: string;
  /** A zod schema (validated locally) or a plain JSON schema (sent as is). */
  schema: z.ZodType | JsonObject;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
  temperature?: number;
  maxOutputTokens?: number;
  /** Name of the stage asking (think, plan, summarize...): used by tracing, recording and the offline model. */
  purpose: string;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  /** Input tokens written to the prompt cache (part of inputTokens; Anthropic's cache_creation_input_tokens). */
  cacheWriteInputTokens?: number;
  /** True when the server reported no usage and the numbers are our own estimate. */
  estimated: boolean;
}

export interface ChatResponse {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: ChatUsage;
  model: string;
  latencyMs: number;
  /** Parsed structured output when the request had a responseFormat. */
  parsed?: unknown;
  /** The reply tried to call a tool in a way the adapter could not read (a broken text-protocol Action line), exactly why. */
  toolCallProblem?: string;
  /** The model's readable reasoning for this reply, when the provider sent any. */
  reasoning?: string;
  /** What the provider needs back with this reply on the next request (see ReasoningReplay). */
  replay?: ReasoningReplay;
  /** The reply says the model cannot do this task (the offline model outside arithmetic): the run stops, kind `cannot_answer`. */
  cannotAnswer?: boolean;
}

/** Progress reported while a streamed reply arrives. */
export type ChatStreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'reasoning'; delta: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; argumentsDelta: string };

export interface ChatModel {
  /** Provider name for tracing (`openai`, `offline`, `scripted`...). */
  readonly provider: string;
  /** Default model name, shown in CLI output and span names. */
  readonly modelName: string;
  /** Where requests go, when over the network (tracing's server.address / server.port). */
  readonly endpoint?: { address: string; port: number };
  chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
  chatStream?(
    request: ChatRequest,
    onEvent: (event: ChatStreamEvent) => void,
    signal?: AbortSignal,
  ): Promise<ChatResponse>;
}

export type ModelErrorKind =
  'rate_limited' | 'timeout' | 'connection' | 'auth' | 'bad_request' | 'server' | 'aborted' | 'invalid_response';

/** The one error type a ChatModel throws. Its message never contains an API key. */
export class ModelError extends StageloopError {
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(
    kind: ModelErrorKind,
    message: string,
    options: { retryable?: boolean; status?: number; cause?: unknown } = {},
  ) {
    super('model', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'ModelError';
    this.kind = kind;
    this.retryable =
      options.retryable ??
      (kind === 'rate_limited' || kind === 'timeout' || kind === 'connection' || kind === 'server');
    if (options.status !== undefined) this.status = options.status;
  }
}

export function emptyUsage(): ChatUsage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };
}
