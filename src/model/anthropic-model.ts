// AnthropicModel: the ChatModel port over Anthropic's Messages API through the official SDK (an optional peer,
// loaded on the first request): tool_use, extended thinking kept and sent back signed, prompt-cache breakpoints.
import type Anthropic from '@anthropic-ai/sdk';
import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import { loadOptional } from '../common/optional-package.js';
import { AnthropicStreamAssembler } from './anthropic-stream.js';
import { readMessage, toAnthropicParams, type AnthropicWireSettings } from './anthropic-wire.js';
import {
  eventsOrBody,
  NativeChatModel,
  readGuarded,
  replayAsEvents,
  type Attempt,
  type NativeModelOptions,
  type Reply,
} from './native-model.js';
import { sdkModelError, type SdkErrors } from './native-errors.js';
import { ModelError, type ChatRequest } from './types.js';

export const defaultAnthropicBaseUrl = 'https://api.anthropic.com';
/** The model used when none is named: Anthropic's fast, cheap tool caller. */
export const defaultAnthropicModel = 'claude-haiku-4-5';

export interface AnthropicModelOptions extends NativeModelOptions {
  /** max_tokens when a request names none (the API requires one). Default 4096. */
  maxTokens?: number;
  /** Extended thinking with this many budget tokens (below maxTokens); its signed blocks are sent back. Default off. */
  thinkingBudgetTokens?: number;
  /** false: no cache_control breakpoints. Default true: system prompt, tools and the newest message. */
  promptCaching?: boolean;
  /** Provider name for tracing. Default 'anthropic'. */
  provider?: string;
}

type AnthropicSdk = typeof import('@anthropic-ai/sdk');

let loaded: AnthropicSdk | undefined;

function loadAnthropicSdk(): Promise<AnthropicSdk> {
  return loadOptional('the anthropic provider', ['@anthropic-ai/sdk'], () => import('@anthropic-ai/sdk')).then(
    (sdk) => (loaded = sdk),
  );
}

export class AnthropicModel extends NativeChatModel {
  readonly provider: string;
  private readonly options: AnthropicModelOptions;
  private sdkClient: Anthropic | undefined;

  constructor(options: AnthropicModelOptions) {
    super(options, defaultAnthropicBaseUrl);
    this.options = options;
    this.provider = options.provider ?? 'anthropic';
  }

  private settings(): AnthropicWireSettings {
    const { options } = this;
    return {
      model: options.model,
      maxTokens: options.maxTokens ?? 4096,
      promptCaching: options.promptCaching ?? true,
      ...(options.temperature !== undefined && { temperature: options.temperature }),
      ...(options.thinkingBudgetTokens !== undefined && { thinkingBudget: options.thinkingBudgetTokens }),
    };
  }

  protected async exchange(request: ChatRequest, { guard, onEvent, attempt }: Attempt): Promise<Reply> {
    const client = (this.sdkClient ??= await this.newClient());
    const params = toAnthropicParams(request, this.settings());
    const options = { signal: guard.signal, headers: { 'x-stainless-retry-count': String(attempt) } };
    if (onEvent === undefined) {
      const message = await client.messages.create({ ...params, stream: false }, options);
      return readMessage(message as Message, this.modelName);
    }
    const response = await guard.wait(client.messages.create({ ...params, stream: true }, options).asResponse());
    const { Stream } = await import('@anthropic-ai/sdk/streaming');
    const read = await eventsOrBody(response, guard, (body, controller) =>
      Stream.fromSSEResponse<RawMessageStreamEvent>(body, controller),
    );
    if ('body' in read) return replayAsEvents(readMessage(read.body as Message, this.modelName), onEvent);
    const assembler = new AnthropicStreamAssembler(onEvent, this.context.url);
    const events = await readGuarded(read.events, guard, (event) => assembler.add(event));
    if (events === 0)
      throw new ModelError(
        'invalid_response',
        `${this.context.url} answered a streamed request with no events: its body is not server-sent events`,
      );
    return readMessage(assembler.result(), this.modelName);
  }

  private async newClient(): Promise<Anthropic> {
    const sdk = await loadAnthropicSdk();
    return new sdk.Anthropic({ ...this.client, maxRetries: 0, logLevel: 'off' });
  }

  protected modelError(error: unknown, signal: AbortSignal | undefined): ModelError {
    return sdkModelError(error, { ...this.context, signal }, loaded as unknown as SdkErrors | undefined);
  }

  protected errorHeaders(error: unknown): { get(name: string): string | null } | undefined {
    return loaded !== undefined && error instanceof loaded.APIError ? error.headers : undefined;
  }
}
