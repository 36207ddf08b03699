// fallbackModel: a ChatModel over several models that moves to the next one when a model fails in a way another may not.
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, ModelErrorKind } from './types.js';
import { ModelError } from './types.js';

/** Failures another model may not have; `auth` and `bad_request` are the caller's to fix, so never by default. */
export const DEFAULT_FALLBACK_KINDS: readonly ModelErrorKind[] = Object.freeze([
  'rate_limited',
  'server',
  'timeout',
  'connection',
]);

export interface FallbackModelOptions {
  /** Kinds that move on, in addition to the defaults (name `auth` or `bad_request` here to fall back on them too). */
  fallbackOn?: readonly ModelErrorKind[];
  /** How long a model that failed is skipped, in ms. Default 30,000; 0 tries every model on every call. */
  coolDownMs?: number;
  /** Injected for exact tests. Default Date.now. */
  clock?: { now(): number };
  /** Called when a model fails and the next is tried, and when a model answers. */
  onEvent?: (event: FallbackEvent) => void;
}

export interface AnsweredBy {
  /** Position in the list given to fallbackModel (0 is the primary). */
  index: number;
  model: string;
  provider: string;
}

export type FallbackEvent =
  | { type: 'model_failed'; index: number; model: string; kind: ModelErrorKind; message: string; coolDownUntil: number }
  | { type: 'model_answered'; index: number; model: string; fellBack: boolean };

/** A ChatResponse saying which model answered; `model` is that model's reply model name. */
export interface FallbackChatResponse extends ChatResponse {
  answeredBy: AnsweredBy;
}

export interface FallbackChatModel extends ChatModel {
  readonly models: readonly ChatModel[];
  chat(request: ChatRequest, signal?: AbortSignal): Promise<FallbackChatResponse>;
  chatStream(
    request: ChatRequest,
    onEvent: (event: ChatStreamEvent) => void,
    signal?: AbortSignal,
  ): Promise<FallbackChatResponse>;
}

/**
 * Tries the models in order, skipping those in their cool-down (all of them are tried when every one is cooling
 * down). An abort is never a reason to move on. When every model fails, the error is the last one's kind, with each
 * model's failure in its message.
 */
export function fallbackModel(models: readonly ChatModel[], options: FallbackModelOptions = {}): FallbackChatModel {
  if (models.length === 0) throw new RangeError('fallbackModel needs at least one model');
  const coolDownMs = options.coolDownMs ?? 30_000;
  if (!(Number.isFinite(coolDownMs) && coolDownMs >= 0))
    throw new RangeError(`fallbackModel: coolDownMs must be a number >= 0, got ${coolDownMs}`);
  const kinds = new Set<ModelErrorKind>([...DEFAULT_FALLBACK_KINDS, ...(options.fallbackOn ?? [])]);
  const clock = options.clock ?? { now: () => Date.now() };
  const list = Object.freeze([...models]);
  // Shared by every run using this model: a rate-limited server is rate-limited for all of them.
  const coolingUntil = new Array<number>(list.length).fill(0);

  async function attempt(
    call: (model: ChatModel) => Promise<ChatResponse>,
    signal: AbortSignal | undefined,
    canMoveOn: () => boolean,
  ): Promise<FallbackChatResponse> {
    const now = clock.now();
    const ready = list.map((_, index) => index).filter((index) => coolingUntil[index]! <= now);
    const order = ready.length > 0 ? ready : list.map((_, index) => index);
    const failures: string[] = [];
    let lastError: ModelError | undefined;
    for (const index of order) {
      if (signal?.aborted) throw new ModelError('aborted', 'The model call was cancelled', { cause: signal.reason });
      const model = list[index]!;
      try {
        const response = await call(model);
        coolingUntil[index] = 0;
        options.onEvent?.({ type: 'model_answered', index, model: model.modelName, fellBack: failures.length > 0 });
        return { ...response, answeredBy: { index, model: model.modelName, provider: model.provider } };
      } catch (error) {
        if (!(error instanceof ModelError) || !kinds.has(error.kind) || !canMoveOn()) throw error;
        coolingUntil[index] = clock.now() + coolDownMs;
        options.onEvent?.({
          type: 'model_failed',
          index,
          model: model.modelName,
          kind: error.kind,
          message: error.message,
          coolDownUntil: coolingUntil[index]!,
        });
        failures.push(`${model.modelName}: ${error.message}`);
        lastError = error;
      }
    }
    const status = lastError!.status;
    throw new ModelError(lastError!.kind, `All ${failures.length} models failed: ${failures.join('; ')}`, {
      retryable: lastError!.retryable,
      cause: lastError,
      ...(status !== undefined ? { status } : {}),
    });
  }

  const primary = list[0]!;
  return {
    provider: primary.provider,
    modelName: primary.modelName,
    ...(primary.endpoint ? { endpoint: primary.endpoint } : {}),
    models: list,
    chat: (request, signal) =>
      attempt(
        (model) => model.chat(request, signal),
        signal,
        () => true,
      ),
    chatStream(request, onEvent, signal) {
      // Text already shown cannot be taken back: once a model has streamed anything, its failure is final.
      let streamed = false;
      const forward = (event: ChatStreamEvent) => {
        streamed = true;
        onEvent(event);
      };
      return attempt(
        (model) => (model.chatStream ? model.chatStream(request, forward, signal) : model.chat(request, signal)),
        signal,
        () => !streamed,
      );
    },
  };
}
