// `execute_tool {tool}` spans, through the tool box's call-wrapping seam: one span per call, so parallel
// calls are siblings under the stage that ran them.
import { SpanKind, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import type { WrapToolCall } from '../engine/tool-port.js';
import { GenAiAttributes, GenAiOperations, GeneralAttributes, SpanNames } from './attributes.js';
import { redactedJson, redactSecrets } from '../common/redact.js';
import { recordFailure, stageloopTracer, tracingIsOff, withSpan } from './span-helpers.js';

export interface ToolSpanOptions {
  /** Defaults to the global API tracer named `stageloop`. */
  tracer?: Tracer;
  /** Record tool arguments and results (redacted). Off by default. */
  recordContent?: boolean;
}

function argumentsValue(text: string): string {
  try {
    return redactedJson(JSON.parse(text) as unknown);
  } catch {
    return redactSecrets(text);
  }
}

/** A call wrapper for any ToolBox that offers `wrappingCalls`: `registry.wrappingCalls(toolSpanWrapper())`. */
export function toolSpanWrapper(options: ToolSpanOptions = {}): WrapToolCall {
  const tracer = options.tracer ?? stageloopTracer();
  const recordContent = options.recordContent ?? false;
  return (call, execute) => {
    if (tracingIsOff(tracer)) return execute();
    const attributes: Attributes = {
      [GenAiAttributes.operationName]: GenAiOperations.executeTool,
      [GenAiAttributes.toolName]: call.name,
      [GenAiAttributes.toolType]: 'function',
      [GenAiAttributes.toolCallId]: call.id,
    };
    if (recordContent) attributes[GenAiAttributes.toolCallArguments] = argumentsValue(call.arguments);
    return withSpan(tracer, SpanNames.tool(call.name), { kind: SpanKind.INTERNAL, attributes }, async (span) => {
      try {
        const result = await execute();
        if (!span.isRecording()) return result;
        if (result.ok) {
          if (recordContent) span.setAttribute(GenAiAttributes.toolCallResult, redactSecrets(result.content));
        } else {
          span.setAttribute(GeneralAttributes.errorType, result.error.kind);
          span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(result.error.message) });
        }
        return result;
      } catch (error) {
        // A ToolBox never rejects; if a wrapped executor does anyway, keep the evidence and pass it on.
        if (span.isRecording()) recordFailure(span, error);
        throw error;
      }
    });
  };
}
