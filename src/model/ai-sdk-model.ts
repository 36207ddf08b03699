// aiSdkModel: any AI SDK language model of provider specification v3 (the `ai` 6.x line: @ai-sdk/provider 3.x,
// whose provider packages run on Node 20) as a ChatModel, so Gemini, Bedrock, Azure, Mistral, Groq and the rest plug in
// through the package their users already have. Nothing of the AI SDK is imported: the model object is all it needs.
import type { JsonObject } from '../common/json.js';
import { StageloopError } from '../common/stageloop-error.js';
import { aiSdkReplay, readContent, toCallOptions, usageOfSpec } from './ai-sdk-wire.js';
import { NativeChatModel, readGuarded, type Attempt, type Reply } from './native-model.js';
import { serverWords, statusError } from './native-errors.js';
import { redactModelSecrets, toModelError } from './openai-errors.js';
import { estimateUsage } from './usage-estimate.js';
import { ModelError, type ChatModel, type ChatRequest, type ChatStreamEvent } from './types.js';

/** What stageloop uses of an AI SDK `LanguageModelV3` (any such model fits: `@ai-sdk/openai`'s, `@ai-sdk/google`'s...). */
export interface AiSdkLanguageModel {
  readonly specificationVersion: 'v3';
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

export interface AiSdkModelOptions {
  /** Used when a request has no temperature of its own. */
  temperature?: number;
  /** Our retries (the model's own are none: the AI SDK retries in generateText, which is not used). Default 2. */
  maxRetries?: number;
  /** The longest silence between streamed parts, and the longest wait for a reply (default 60,000 ms). */
  timeoutMs?: number;
}

type Part = { type: string } & Record<string, unknown>;

class AiSdkChatModel extends NativeChatModel {
  readonly provider: string;
  private readonly replayTag: string;

  constructor(
    private readonly languageModel: AiSdkLanguageModel,
    private readonly settings: AiSdkModelOptions,
  ) {
    super({ model: languageModel.modelId, ...settings }, 'http://ai-sdk.invalid');
    // Tracing's provider name: the AI SDK's own ("openai.chat", "google.generative-ai"...).
    this.provider = languageModel.provider;
    this.replayTag = aiSdkReplay(languageModel.provider);
  }

  protected async exchange(request: ChatRequest, { guard, onEvent }: Attempt): Promise<Reply> {
    const options = { ...toCallOptions(request, this.replayTag, this.settings.temperature), abortSignal: guard.signal };
    let read: Omit<Reply, 'usage' | 'model'>;
    let usage: unknown;
    if (onEvent === undefined) {
      const result = (await this.languageModel.doGenerate(options as never)) as Part;
      read = readContent(result.content as unknown[], result.finishReason, this.replayTag);
      usage = result.usage;
    } else {
      const { stream } = await this.languageModel.doStream(options as never);
      const parts = new StreamParts(onEvent);
      await readGuarded(streamIterable(stream), guard, (part) => parts.add(part as Part));
      read = readContent(parts.content(), parts.finishReason, this.replayTag);
      usage = parts.usage;
    }
    return { ...read, model: this.modelName, usage: usageOfSpec(usage) ?? (await estimateUsage(request, read)) };
  }

  protected modelError(error: unknown, signal: AbortSignal | undefined): ModelError {
    const context = { ...this.context, url: `${this.provider} (${this.modelName})`, signal };
    const call = error as { statusCode?: unknown; responseBody?: unknown; data?: unknown; isRetryable?: unknown };
    if (error instanceof ModelError || signal?.aborted || typeof call !== 'object' || call === null)
      return toModelError(error, context);
    if (typeof call.statusCode === 'number') {
      let body: unknown = call.data;
      try {
        if (body === undefined && typeof call.responseBody === 'string') body = JSON.parse(call.responseBody);
      } catch {
        body = { message: call.responseBody }; // a body that is not JSON: its text is the server's words
      }
      return statusError(call.statusCode, serverWords(body, (error as Error).message), context, error);
    }
    if (call.isRetryable === true)
      return new ModelError(
        'connection',
        redactModelSecrets(`cannot reach ${context.url}: ${(error as Error).message}`, undefined),
        {
          cause: error,
        },
      );
    return toModelError(error, context);
  }

  protected errorHeaders(error: unknown): { get(name: string): string | null } | undefined {
    const headers = (error as { responseHeaders?: Record<string, string> } | null)?.responseHeaders;
    return headers === undefined ? undefined : { get: (name) => headers[name] ?? null };
  }
}

/** A web ReadableStream as an async iterable (Node 20's has no async iterator in its types). */
async function* streamIterable<Item>(stream: ReadableStream<Item>): AsyncGenerator<Item> {
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    reader.releaseLock();
  }
}

/** The stream's parts put back into a generate result's content, with each delta passed on. */
class StreamParts {
  private readonly texts = new Map<string, { type: 'text' | 'reasoning'; text: string; providerMetadata?: unknown }>();
  private readonly calls: Part[] = [];
  private readonly callIndex = new Map<string, number>();
  finishReason: unknown;
  usage: unknown;

  constructor(private readonly onEvent: (event: ChatStreamEvent) => void) {}

  add(part: Part): void {
    const id = String(part.id ?? '');
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        this.texts.set(`${part.type}:${id}`, { type: part.type === 'text-start' ? 'text' : 'reasoning', text: '' });
        return;
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const key = `${kind}-start:${id}`;
        if (!this.texts.has(key)) this.texts.set(key, { type: kind, text: '' });
        this.texts.get(key)!.text += String(part.delta);
        this.onEvent({ type: kind, delta: String(part.delta) });
        return;
      }
      case 'reasoning-end': {
        const entry = this.texts.get(`reasoning-start:${id}`);
        if (entry !== undefined && part.providerMetadata !== undefined) entry.providerMetadata = part.providerMetadata;
        return;
      }
      case 'tool-input-start':
        if (part.providerExecuted === true) return;
        this.callIndex.set(id, this.callIndex.size);
        this.onEvent({
          type: 'tool_call',
          index: this.callIndex.size - 1,
          id,
          name: String(part.toolName),
          argumentsDelta: '',
        });
        return;
      case 'tool-input-delta': {
        const index = this.callIndex.get(id);
        if (index !== undefined) this.onEvent({ type: 'tool_call', index, argumentsDelta: String(part.delta) });
        return;
      }
      case 'tool-call':
        this.calls.push(part);
        return;
      case 'finish':
        this.finishReason = part.finishReason;
        this.usage = part.usage;
        return;
      case 'error':
        throw part.error instanceof Error
          ? part.error
          : new ModelError('server', `the model failed: ${JSON.stringify(part.error)}`);
      default:
        return;
    }
  }

  content(): unknown[] {
    const texts = [...this.texts.values()].map((entry) => ({ ...entry }) as JsonObject);
    return [...texts, ...this.calls];
  }
}

/** Any AI SDK language model of specification v3 as a ChatModel (fallbacks, budgets, streaming, recording, replay). */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): ChatModel {
  const version = (languageModel as { specificationVersion?: unknown }).specificationVersion;
  if (version !== 'v3')
    throw new StageloopError(
      'config',
      `aiSdkModel takes a language model of AI SDK provider specification v3 (the ai 6.x packages), got ${JSON.stringify(version)}: update the provider package`,
    );
  return new AiSdkChatModel(languageModel, options);
}
