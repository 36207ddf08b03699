// A ChatModel decorator that wraps every call in a `chat {model}` CLIENT span with the GenAI attributes.
import { SpanKind, type Attributes, type Meter, type Span, type Tracer } from '@opentelemetry/api';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, ToolCall } from '../model/types.js';
import { GenAiAttributes, GenAiOperations, GeneralAttributes, SpanNames, StageloopAttributes } from './attributes.js';
import { redactedJson } from '../common/redact.js';
import { recordFailure, stageloopTracer, tracingIsOff, withSpan } from './span-helpers.js';
import { stageloopInstruments } from './metrics.js';
import { ModelCallMetrics } from './model-metrics.js';

export interface TraceModelOptions {
  /** Defaults to the global API tracer named `stageloop`. */
  tracer?: Tracer;
  /** Record input and output messages (redacted). Off by default: they may hold user data. */
  recordContent?: boolean;
  /** Defaults to the global API meter named `stageloop` (a no-op until an SDK registers a MeterProvider). */
  meter?: Meter;
}

type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; result: string };

/** Tool arguments arrive as text; the conventions prefer an object, so parse when it is valid JSON. */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toolCallParts(calls: readonly ToolCall[]): MessagePart[] {
  return calls.map((call) => ({
    type: 'tool_call',
    id: call.id,
    name: call.name,
    arguments: parsedArguments(call.arguments),
  }));
}

/** ChatMessage to the GenAI input-message shape: `{ role, parts: [...] }`. */
function toGenAiMessage(message: ChatMessage): { role: string; parts: MessagePart[] } {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.toolCallId, result: message.content }] };
    case 'assistant': {
      const parts: MessagePart[] = message.content === '' ? [] : [{ type: 'text', content: message.content }];
      // The reasoning part of the conventions, first: how the model got to what it said.
      if (message.reasoning !== undefined) parts.unshift({ type: 'reasoning', content: message.reasoning });
      return { role: 'assistant', parts: [...parts, ...toolCallParts(message.toolCalls ?? [])] };
    }
    default:
      return { role: message.role, parts: [{ type: 'text', content: message.content }] };
  }
}

function requestAttributes(
  model: ChatModel,
  request: ChatRequest,
  streamed: boolean,
  recordContent: boolean,
): Attributes {
  const attributes: Attributes = {
    [GenAiAttributes.operationName]: GenAiOperations.chat,
    [GenAiAttributes.providerName]: model.provider,
    [GenAiAttributes.requestModel]: model.modelName,
    [StageloopAttributes.purpose]: request.purpose,
  };
  if (streamed) attributes[GenAiAttributes.requestStream] = true;
  if (request.temperature !== undefined) attributes[GenAiAttributes.requestTemperature] = request.temperature;
  if (request.maxOutputTokens !== undefined) attributes[GenAiAttributes.requestMaxTokens] = request.maxOutputTokens;
  if (model.endpoint !== undefined) {
    attributes[GeneralAttributes.serverAddress] = model.endpoint.address;
    attributes[GeneralAttributes.serverPort] = model.endpoint.port;
  }
  if (recordContent) {
    const system = request.messages.filter((message) => message.role === 'system');
    const others = request.messages.filter((message) => message.role !== 'system');
    if (system.length > 0) {
      attributes[GenAiAttributes.systemInstructions] = redactedJson(
        system.map((message) => ({ type: 'text', content: message.content })),
      );
    }
    attributes[GenAiAttributes.inputMessages] = redactedJson(others.map(toGenAiMessage));
  }
  return attributes;
}

function responseAttributes(response: ChatResponse, recordContent: boolean): Attributes {
  const attributes: Attributes = {
    [GenAiAttributes.responseModel]: response.model,
    [GenAiAttributes.responseFinishReasons]: [response.finishReason],
    [GenAiAttributes.usageInputTokens]: response.usage.inputTokens,
    [GenAiAttributes.usageOutputTokens]: response.usage.outputTokens,
    [GenAiAttributes.usageCacheReadInputTokens]: response.usage.cachedInputTokens,
    [GenAiAttributes.usageReasoningOutputTokens]: response.usage.reasoningTokens,
  };
  if (recordContent) {
    const reply = toGenAiMessage({
      role: 'assistant',
      content: response.content,
      toolCalls: response.toolCalls,
      ...(response.reasoning !== undefined && { reasoning: response.reasoning }),
    });
    attributes[GenAiAttributes.outputMessages] = redactedJson([{ ...reply, finish_reason: response.finishReason }]);
  }
  return attributes;
}

/** Wraps `model` so each call is a `chat {model}` span under the active context (the calling stage). */
export function traceModel(model: ChatModel, options: TraceModelOptions = {}): ChatModel {
  const tracer = options.tracer ?? stageloopTracer();
  const recordContent = options.recordContent ?? false;

  function traced(
    request: ChatRequest,
    streamed: boolean,
    call: (metrics: ModelCallMetrics | undefined) => Promise<ChatResponse>,
  ): Promise<ChatResponse> {
    const instruments = stageloopInstruments(options.meter);
    if (tracingIsOff(tracer) && instruments === undefined) return call(undefined);
    const metrics = instruments === undefined ? undefined : new ModelCallMetrics(instruments, model);
    const spanOptions = {
      kind: SpanKind.CLIENT,
      attributes: requestAttributes(model, request, streamed, recordContent),
    };
    return withSpan(tracer, SpanNames.chat(model.modelName), spanOptions, async (span: Span) => {
      try {
        const response = await call(metrics);
        if (span.isRecording()) span.setAttributes(responseAttributes(response, recordContent));
        metrics?.succeeded(response);
        return response;
      } catch (error) {
        if (span.isRecording()) recordFailure(span, error);
        metrics?.failed(error);
        throw error;
      }
    });
  }

  const wrapped: ChatModel = {
    provider: model.provider,
    modelName: model.modelName,
    chat: (request, signal) => traced(request, false, () => model.chat(request, signal)),
  };
  if (model.endpoint !== undefined) Object.assign(wrapped, { endpoint: model.endpoint });
  const chatStream = model.chatStream?.bind(model);
  if (chatStream !== undefined) {
    Object.assign(wrapped, {
      chatStream: (request: ChatRequest, onEvent: (event: ChatStreamEvent) => void, signal?: AbortSignal) =>
        traced(request, true, (metrics) => chatStream(request, metrics?.chunks(onEvent) ?? onEvent, signal)),
    });
  }
  return wrapped;
}
