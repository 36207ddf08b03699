// The GenAI client metrics of one model call: operation duration, token usage (input, output; cache reads and
// reasoning as their own counters), and for a streamed reply the time to the first chunk and between chunks.
import type { Attributes } from '@opentelemetry/api';
import type { ChatModel, ChatResponse, ChatStreamEvent } from '../model/types.js';
import { GenAiAttributes, GenAiOperations, GeneralAttributes } from './attributes.js';
import { errorTypeOf } from './span-helpers.js';
import { secondsBetween, type StageloopInstruments } from './metrics.js';

/** Times one call; `chunks` wraps a stream's event callback to time its chunks. */
export class ModelCallMetrics {
  private readonly startedMs = performance.now();
  private lastChunkMs: number | undefined;

  constructor(
    private readonly instruments: StageloopInstruments,
    private readonly model: ChatModel,
  ) {}

  private baseAttributes(): Attributes {
    const attributes: Attributes = {
      [GenAiAttributes.operationName]: GenAiOperations.chat,
      [GenAiAttributes.providerName]: this.model.provider,
      [GenAiAttributes.requestModel]: this.model.modelName,
    };
    if (this.model.endpoint !== undefined) {
      attributes[GeneralAttributes.serverAddress] = this.model.endpoint.address;
      attributes[GeneralAttributes.serverPort] = this.model.endpoint.port;
    }
    return attributes;
  }

  chunks(onEvent: (event: ChatStreamEvent) => void): (event: ChatStreamEvent) => void {
    return (event) => {
      const now = performance.now();
      const attributes = this.baseAttributes();
      if (this.lastChunkMs === undefined)
        this.instruments.timeToFirstChunk.record(secondsBetween(this.startedMs, now), attributes);
      else this.instruments.timePerOutputChunk.record(secondsBetween(this.lastChunkMs, now), attributes);
      this.lastChunkMs = now;
      onEvent(event);
    };
  }

  succeeded(response: ChatResponse): void {
    const attributes = this.baseAttributes();
    attributes[GenAiAttributes.responseModel] = response.model;
    this.instruments.operationDuration.record(secondsBetween(this.startedMs, performance.now()), attributes);
    const { usage } = response;
    this.instruments.tokenUsage.record(usage.inputTokens, { ...attributes, [GenAiAttributes.tokenType]: 'input' });
    this.instruments.tokenUsage.record(usage.outputTokens, { ...attributes, [GenAiAttributes.tokenType]: 'output' });
    this.instruments.cacheReadInputTokens.add(usage.cachedInputTokens, attributes);
    this.instruments.reasoningOutputTokens.add(usage.reasoningTokens, attributes);
  }

  failed(error: unknown): void {
    const attributes = this.baseAttributes();
    attributes[GeneralAttributes.errorType] = errorTypeOf(error);
    this.instruments.operationDuration.record(secondsBetween(this.startedMs, performance.now()), attributes);
  }
}
