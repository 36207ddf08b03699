// What the native adapters (Responses, Anthropic Messages, AI SDK) share: retries with the run's signal, structured
// output checked with one repair turn, the silence guard around a streamed body, and the reply's latency.
import { settleStructuredOutput } from './structured-output.js';
import { defaultMaxRetryAfterMs, withRetries } from './retry.js';
import { RequestAborted, RequestGuard } from './request-guard.js';
import { sumUsage } from './usage-estimate.js';
import { displayUrl, type ErrorContext } from './openai-errors.js';
import {
  ModelError,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamEvent,
  type FinishReason,
} from './types.js';

/** The settings every native adapter takes besides its own. */
export interface NativeModelOptions {
  /** Model name sent with every request. */
  model: string;
  /** The API's base URL (each adapter has its default). */
  baseUrl?: string;
  /** The API key; local servers usually need none. */
  apiKey?: string;
  /** Used when a request has no temperature of its own. */
  temperature?: number;
  /** Retries on 408/409/429/5xx, timeouts and lost connections (default 2), after retry-after or a backoff. */
  maxRetries?: number;
  /** The longest retry-after honoured, in ms (default 10,000). */
  maxRetryAfterMs?: number;
  /** Per attempt: time to the response headers, and the longest silence between streamed events (default 60,000). */
  timeoutMs?: number;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
}

/** One attempt: the request, the guard to hand the SDK, and the event sink when streamed. */
export interface Attempt {
  guard: RequestGuard;
  onEvent: ((event: ChatStreamEvent) => void) | undefined;
  attempt: number;
}

/** A reply as an adapter read it; latency and structured output are filled in here. */
export type Reply = Omit<ChatResponse, 'latencyMs'>;

export abstract class NativeChatModel implements ChatModel {
  abstract readonly provider: string;
  readonly modelName: string;
  readonly endpoint: { address: string; port: number };
  protected readonly timeoutMs: number;
  /** The server as errors show it, with what they need (the key, to keep it out of them). */
  protected readonly context: ErrorContext;
  /** What the SDK client is made with. */
  protected readonly client: {
    baseURL: string;
    apiKey: string;
    timeout: number;
    defaultHeaders?: Record<string, string>;
  };
  private readonly maxRetries: number;
  private readonly maxRetryAfterMs: number;

  constructor(options: NativeModelOptions, defaultBaseUrl: string) {
    const baseUrl = options.baseUrl ?? defaultBaseUrl;
    const url = new URL(baseUrl);
    this.modelName = options.model;
    this.endpoint = { address: url.hostname, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
    this.timeoutMs = Math.max(1, Math.round(options.timeoutMs ?? 60_000));
    this.maxRetries = options.maxRetries ?? 2;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? defaultMaxRetryAfterMs;
    this.context = {
      url: displayUrl(baseUrl),
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    };
    this.client = {
      baseURL: baseUrl,
      apiKey: options.apiKey || 'no-key',
      timeout: this.timeoutMs,
      ...(options.headers && { defaultHeaders: options.headers }),
    };
  }

  /** One exchange with the server (streamed when attempt.onEvent is given). */
  protected abstract exchange(request: ChatRequest, attempt: Attempt): Promise<Reply>;
  /** Whatever the exchange threw, as the one error type, with a message that has no key. */
  protected abstract modelError(error: unknown, signal: AbortSignal | undefined): ModelError;
  /** The server's headers on a failed attempt (for retry-after). */
  protected abstract errorHeaders(error: unknown): { get(name: string): string | null } | undefined;

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

  private async respond(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    onEvent: ((event: ChatStreamEvent) => void) | undefined,
  ): Promise<ChatResponse> {
    const started = performance.now();
    try {
      const reply = await this.withRetries(request, signal, onEvent);
      const format = request.responseFormat;
      if (format !== undefined && reply.finishReason !== 'length' && reply.toolCalls.length === 0) {
        await settleStructuredOutput(request, reply, (repairRequest) =>
          this.withRetries(repairRequest, signal, undefined),
        );
      }
      return { ...reply, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      throw this.modelError(error, signal);
    }
  }

  /** Our own retries (the SDKs make none): the wait is cancelled by the signal; a stream that delivered is not retried. */
  private async withRetries(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    onEvent: ((event: ChatStreamEvent) => void) | undefined,
  ): Promise<Reply> {
    return withRetries(
      { maxRetries: this.maxRetries, maxRetryAfterMs: this.maxRetryAfterMs, url: this.context.url, signal },
      onEvent,
      async (forward, attempt) => {
        const guard = new RequestGuard(signal, this.timeoutMs);
        try {
          guard.restartSilenceTimer();
          return await guard.wait(this.exchange(request, { guard, onEvent: forward, attempt }));
        } catch (error) {
          // A body that went silent is a timeout, whatever the SDK made of the abort.
          if (!guard.silent) throw error;
          const silence = new ModelError(
            'timeout',
            `${this.context.url} stopped sending: nothing for ${this.timeoutMs} ms`,
            {
              cause: error,
            },
          );
          silences.add(silence);
          throw silence;
        } finally {
          guard.dispose();
        }
      },
      (error) => ({
        error: error instanceof ModelError && silences.has(error) ? error : this.modelError(error, signal),
        headers: this.errorHeaders(error),
      }),
    );
  }
}

/** The timeouts a silent body became: already what to throw, not an SDK error to map. */
const silences = new WeakSet<ModelError>();

/** Reads a streamed body under the guard: each item restarts the silence timer; an abort is never taken for its end. */
export async function readGuarded<Item>(
  stream: AsyncIterable<Item>,
  guard: RequestGuard,
  onItem: (item: Item) => void,
): Promise<number> {
  const iterator = stream[Symbol.asyncIterator]();
  let count = 0;
  guard.restartSilenceTimer();
  for (let next = await guard.wait(iterator.next()); !next.done; next = await guard.wait(iterator.next())) {
    guard.restartSilenceTimer();
    onItem(next.value);
    count++;
  }
  if (guard.signal.aborted) throw new RequestAborted();
  return count;
}

/**
 * A streamed request's raw response: its server-sent events as the SDK's Stream, or, when the server answered with one
 * JSON body instead (some proxies and compatible servers do), that body, read as the whole reply.
 */
export async function eventsOrBody<Event>(
  response: Response,
  guard: RequestGuard,
  fromSSEResponse: (response: Response, controller: AbortController) => AsyncIterable<Event>,
): Promise<{ events: AsyncIterable<Event> } | { body: unknown }> {
  if (response.headers.get('content-type')?.includes('json')) return { body: await guard.wait(response.json()) };
  const controller = new AbortController();
  guard.signal.addEventListener('abort', () => controller.abort(), { once: true });
  return { events: fromSSEResponse(response, controller) };
}

/** A whole reply passed on as the events a stream of it would have sent (its reasoning, text and calls). */
export function replayAsEvents(reply: Reply, onEvent: (event: ChatStreamEvent) => void): Reply {
  if (reply.reasoning) onEvent({ type: 'reasoning', delta: reply.reasoning });
  if (reply.content !== '') onEvent({ type: 'text', delta: reply.content });
  reply.toolCalls.forEach((call, index) =>
    onEvent({ type: 'tool_call', index, id: call.id, name: call.name, argumentsDelta: call.arguments }),
  );
  return reply;
}

/** A finish reason that says the reply was cut or is a call, from what the adapter read. */
export function finishWith(reason: FinishReason, toolCalls: number): FinishReason {
  return reason === 'stop' && toolCalls > 0 ? 'tool_calls' : reason;
}

/** Tool-call arguments as text: an object as JSON, empty text as `{}` (servers reject an empty string back). */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value.trim() === '' ? '{}' : value;
  return JSON.stringify(value ?? {});
}

/** Arguments text as the object the native APIs want back; text that is not a JSON object is sent as `{}`. */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
