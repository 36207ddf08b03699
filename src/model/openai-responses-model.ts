// OpenAIResponsesModel: the ChatModel port over OpenAI's Responses API (`client.responses` of the openai SDK), the
// API through which OpenAI's reasoning models keep their reasoning across turns (encrypted items, `store: false`).
import type OpenAI from 'openai';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import {
  eventsOrBody,
  NativeChatModel,
  readGuarded,
  replayAsEvents,
  type Attempt,
  type NativeModelOptions,
  type Reply,
} from './native-model.js';
import { toModelError } from './openai-errors.js';
import { defaultOpenAIBaseUrl } from './openai-model.js';
import { loadOpenAISdk, loadedOpenAISdk } from './openai-sdk.js';
import { ResponsesStreamAssembler } from './openai-responses-stream.js';
import { readResponse, toResponsesParams, type ResponsesWireSettings } from './openai-responses-wire.js';
import { estimateUsage } from './usage-estimate.js';
import { ModelError, type ChatRequest } from './types.js';

export interface OpenAIResponsesModelOptions extends NativeModelOptions {
  /** reasoning.effort for reasoning models (gpt-5, o-series); absent: the model's default, no reasoning settings sent. */
  reasoningEffort?: ResponsesWireSettings['reasoningEffort'];
  /** Reasoning summaries asked for with reasoningEffort (default 'auto'). */
  reasoningSummary?: ResponsesWireSettings['reasoningSummary'];
  /** prompt_cache_key for every request (a session's name, say); default: one per conversation (its system and task). */
  promptCacheKey?: string;
  /** true (default): `store: false` with encrypted reasoning items sent back; false: the server keeps them (store). */
  statelessReasoning?: boolean;
  /** Provider name for tracing. Default 'openai'. */
  provider?: string;
}

export class OpenAIResponsesModel extends NativeChatModel {
  readonly provider: string;
  private readonly options: OpenAIResponsesModelOptions;
  private sdkClient: OpenAI | undefined;

  constructor(options: OpenAIResponsesModelOptions) {
    super(options, defaultOpenAIBaseUrl);
    this.options = options;
    this.provider = options.provider ?? 'openai';
  }

  private settings(): ResponsesWireSettings {
    const { options } = this;
    return {
      model: options.model,
      statelessReasoning: options.statelessReasoning ?? true,
      ...(options.temperature !== undefined && { temperature: options.temperature }),
      ...(options.reasoningEffort !== undefined && { reasoningEffort: options.reasoningEffort }),
      ...(options.reasoningSummary !== undefined && { reasoningSummary: options.reasoningSummary }),
      ...(options.promptCacheKey !== undefined && { promptCacheKey: options.promptCacheKey }),
    };
  }

  protected async exchange(request: ChatRequest, { guard, onEvent, attempt }: Attempt): Promise<Reply> {
    const client = (this.sdkClient ??= await this.newClient());
    const params = toResponsesParams(request, this.settings());
    const options = { signal: guard.signal, headers: { 'x-stainless-retry-count': String(attempt) } };
    let response: Response;
    let whole = false;
    if (onEvent === undefined) {
      response = await client.responses.create({ ...params, stream: false }, options);
    } else {
      const raw = await guard.wait(client.responses.create({ ...params, stream: true }, options).asResponse());
      const { Stream } = await import('openai/streaming');
      const read = await eventsOrBody(raw, guard, (body, controller) =>
        Stream.fromSSEResponse<ResponseStreamEvent>(body, controller),
      );
      if ('body' in read) whole = true;
      const assembler = new ResponsesStreamAssembler(onEvent, this.context.url);
      if ('events' in read) await readGuarded(read.events, guard, (event) => assembler.add(event));
      response = 'body' in read ? (read.body as Response) : assembler.result();
    }
    const reply = readResponse(response, this.context.url);
    if (whole && onEvent !== undefined) replayAsEvents(reply as Reply, onEvent);
    return {
      ...reply,
      model: reply.model || this.modelName,
      usage: reply.usage ?? (await estimateUsage(request, reply)),
    };
  }

  private async newClient(): Promise<OpenAI> {
    const sdk = await loadOpenAISdk();
    return new sdk.OpenAI({ ...this.client, maxRetries: 0, logLevel: 'off' });
  }

  protected modelError(error: unknown, signal: AbortSignal | undefined): ModelError {
    return toModelError(error, { ...this.context, signal });
  }

  protected errorHeaders(error: unknown): { get(name: string): string | null } | undefined {
    const sdk = loadedOpenAISdk();
    return sdk !== undefined && error instanceof sdk.APIError ? error.headers : undefined;
  }
}
