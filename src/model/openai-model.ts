// OpenAIChatModel: the ChatModel port over any OpenAI-compatible Chat Completions server (OpenAI, vLLM, Ollama, llama.cpp).
import type OpenAI from 'openai';
import { displayUrl, toModelError, type ErrorContext } from './openai-errors.js';
import { sendExchange } from './openai-exchange.js';
import { loadOpenAISdk, loadedOpenAISdk } from './openai-sdk.js';
import { errorBodyFetch } from './openai-error-body.js';
import { defaultMaxRetryAfterMs, withRetries } from './retry.js';
import { normaliseFinishReason, type WireSettings, type WireTurn } from './openai-wire.js';
import { settleStructuredOutput } from './structured-output.js';
import { parseActions } from './text-tool-protocol.js';
import { estimateUsage, sumUsage } from './usage-estimate.js';
import { ModelError, type ChatModel, type ChatRequest, type ChatResponse, type ChatStreamEvent } from './types.js';

export const defaultOpenAIBaseUrl = 'https://api.openai.com/v1';

export interface OpenAIChatModelOptions {
  /** Model name sent with every request, e.g. gpt-4o-mini or llama3.1:8b. */
  model: string;
  /** Default https://api.openai.com/v1. */
  baseUrl?: string;
  /** Local servers usually need none; a placeholder is sent then. */
  apiKey?: string;
  /** Used when a request has no temperature of its own. */
  temperature?: number;
  /** Retries on 408/409/429/5xx, timeouts and lost connections (default 2), after retry-after or a backoff. */
  maxRetries?: number;
  /** The longest retry-after honoured, in ms (default 10,000): a server asking for longer waits this long. */
  maxRetryAfterMs?: number;
  /** Per attempt: time to the response headers, and the longest silence between streamed chunks (default 60 000). */
  timeoutMs?: number;
  /** 'text' for models without native tool calling: tools go in the system prompt and calls come back as Action lines. */
  toolProtocol?: 'native' | 'text';
  /** false leaves `tool_choice` out of requests (Ollama rejects it). Default true. */
  sendToolChoice?: boolean;
  /**
   * How to ask for structured output: 'json_schema' sends response_format; 'prompt' asks for JSON in the system prompt
   * (for servers without response_format). Unset: json_schema, switching to prompt for good after the server rejects it.
   */
  structuredOutput?: 'json_schema' | 'prompt';
  /** Send stream_options.include_usage when streaming (default true). */
  streamUsage?: boolean;
  /** Provider name for tracing; default 'openai' for api.openai.com, otherwise 'openai_compatible'. */
  provider?: string;
  /**
   * OpenAI's prompt_cache_key on every request (a session's or tenant's name): requests sharing a prefix and a key
   * reach the same cache. Not sent when unset, since other Chat Completions servers may refuse the field.
   */
  promptCacheKey?: string;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
  /** Ids for text-protocol calls and for tool calls a server sent without one. Default call_local_1, call_local_2... */
  newId?: () => string;
}

export class OpenAIChatModel implements ChatModel {
  readonly provider: string;
  readonly modelName: string;
  readonly endpoint: { address: string; port: number };
  private client: OpenAI | undefined;
  private readonly options: OpenAIChatModelOptions;
  private readonly maxRetries: number;
  private readonly maxRetryAfterMs: number;
  private readonly errorContext: ErrorContext;
  private readonly newId: () => string;
  /** What this server's replies carry in `replay`: its reasoning goes back only to the server that wrote it. */
  private readonly replayProvider: string;
  /** Set once the server has rejected response_format: later structured calls use the prompt fallback at once. */
  private jsonSchemaRejected = false;

  constructor(options: OpenAIChatModelOptions) {
    this.options = options;
    const baseUrl = options.baseUrl ?? defaultOpenAIBaseUrl;
    const url = new URL(baseUrl);
    const isOpenAI = url.hostname === 'api.openai.com';
    this.provider = options.provider ?? (isOpenAI ? 'openai' : 'openai_compatible');
    this.modelName = options.model;
    this.endpoint = { address: url.hostname, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
    const timeoutMs = Math.max(1, Math.round(options.timeoutMs ?? 60_000));
    const maxRetries = options.maxRetries ?? 2;
    this.maxRetries = maxRetries;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? defaultMaxRetryAfterMs;
    this.errorContext = {
      url: displayUrl(baseUrl),
      timeoutMs,
      maxRetries,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    };
    this.replayProvider = `chat-completions ${this.errorContext.url}`;
    let count = 0;
    this.newId = options.newId ?? (() => `call_local_${++count}`);
  }

  chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    return this.respond(request, signal, undefined);
  }

  chatStream(
    request: ChatRequest,
    onEvent: (event: ChatStreamEvent) => void,
    signal?: AbortSignal,
  ): Promise<ChatResponse> {
    return this.respond(request, signal, onEvent);
  }

  private settings(): WireSettings {
    const settings: WireSettings = {
      model: this.options.model,
      toolProtocol: this.options.toolProtocol ?? 'native',
      sendToolChoice: this.options.sendToolChoice ?? true,
      structuredOutput: this.options.structuredOutput ?? (this.jsonSchemaRejected ? 'prompt' : 'json_schema'),
      maxTokensField: this.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens',
      replayProvider: this.replayProvider,
    };
    if (this.options.temperature !== undefined) settings.temperature = this.options.temperature;
    if (this.options.promptCacheKey !== undefined) settings.promptCacheKey = this.options.promptCacheKey;
    return settings;
  }

  private async respond(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    onEvent: ((event: ChatStreamEvent) => void) | undefined,
  ): Promise<ChatResponse> {
    const started = performance.now();
    try {
      let turn: WireTurn;
      try {
        turn = await this.sendWithRetries(request, signal, onEvent);
      } catch (error) {
        // A server without response_format answers 400: retry once asking for JSON in the prompt instead.
        const mapped = toModelError(error, { ...this.errorContext, signal });
        if (
          mapped.kind !== 'bad_request' ||
          request.responseFormat === undefined ||
          this.options.structuredOutput !== undefined ||
          this.jsonSchemaRejected
        )
          throw mapped;
        this.jsonSchemaRejected = true;
        turn = await this.sendWithRetries(request, signal, onEvent);
      }
      const response = await this.toResponse(request, turn);
      if (
        request.responseFormat !== undefined &&
        response.finishReason !== 'length' &&
        response.toolCalls.length === 0
      ) {
        await settleStructuredOutput(request, response, async (repairRequest) =>
          this.toResponse(repairRequest, await this.sendWithRetries(repairRequest, signal, undefined)),
        );
      }
      response.latencyMs = Math.round(performance.now() - started);
      return response;
    } catch (error) {
      throw toModelError(error, { ...this.errorContext, signal });
    }
  }

  /**
   * The exchange with our own retries (the SDK makes none): the wait between attempts is cancelled by the signal at
   * once. A stream is retried only before it delivered anything.
   */
  private async sendWithRetries(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    onEvent: ((event: ChatStreamEvent) => void) | undefined,
  ): Promise<WireTurn> {
    const client = (this.client ??= await this.newClient());
    const { url, timeoutMs } = this.errorContext;
    return withRetries(
      { maxRetries: this.maxRetries, maxRetryAfterMs: this.maxRetryAfterMs, url, signal },
      onEvent,
      (forward, attempt) =>
        sendExchange(client, request, {
          settings: this.settings(),
          signal,
          onEvent: forward,
          attempt,
          url,
          timeoutMs,
          newId: this.newId,
          streamUsage: this.options.streamUsage,
        }),
      (error) => {
        const sdk = loadedOpenAISdk();
        const headers = sdk !== undefined && error instanceof sdk.APIError ? error.headers : undefined;
        return { error: toModelError(error, { ...this.errorContext, signal }), headers };
      },
    );
  }

  private async newClient(): Promise<OpenAI> {
    const sdk = await loadOpenAISdk();
    const options = this.options;
    return new sdk.OpenAI({
      apiKey: options.apiKey || 'no-key',
      baseURL: options.baseUrl ?? defaultOpenAIBaseUrl,
      maxRetries: 0,
      timeout: this.errorContext.timeoutMs,
      logLevel: 'off',
      fetch: errorBodyFetch,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
  }

  /** Applies the text protocol, normalises the finish reason and fills in usage (estimated when the server sent none). */
  private async toResponse(request: ChatRequest, turn: WireTurn): Promise<ChatResponse> {
    let content = turn.content;
    let toolCalls = turn.toolCalls;
    let toolProblem: string | undefined;
    if (this.settings().toolProtocol === 'text' && toolCalls.length === 0) {
      const actions = parseActions(content);
      if (actions.kind === 'tools') {
        toolCalls = actions.calls.map((call) => ({ id: this.newId(), name: call.name, arguments: call.arguments }));
        content = content.slice(0, content.search(/Action\s*:/)).trim();
      } else if (actions.kind === 'finish') {
        content = actions.answer;
      } else if (actions.kind === 'invalid') {
        // Not an error of the server: the caller (think) shows the model exactly this and asks again (a line cut by
        // the length limit, like cut native arguments, gets think's truncation retry).
        toolProblem = `${actions.reason}: ${actions.raw.slice(0, 200)}`;
      }
    }
    const response: ChatResponse = {
      content,
      toolCalls,
      finishReason: normaliseFinishReason(turn.finishReason, toolCalls.length > 0),
      usage: turn.usage ?? (await estimateUsage(request, { content: turn.content, toolCalls: turn.toolCalls })),
      model: turn.model ?? this.modelName,
      latencyMs: 0,
    };
    if (turn.reasoning !== undefined) response.reasoning = turn.reasoning;
    if (turn.replayFields !== undefined)
      response.replay = { provider: this.replayProvider, items: [turn.replayFields] };
    if (toolProblem !== undefined) response.toolCallProblem = `Your Action line could not be read: ${toolProblem}`;
    return response;
  }
}
