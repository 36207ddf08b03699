// `execute_tool {tool}` spans, through the tool box's call-wrapping seam: one span per call, so parallel
// calls are siblings under the stage that ran them.
import { SpanKind, SpanStatusCode, type Attributes, type Meter, type Tracer } from '@opentelemetry/api';
import type { WrapToolCall } from '../engine/tool-port.js';
import { GenAiAttributes, GenAiOperations, GeneralAttributes, SpanNames } from './attributes.js';
import { redactedJson, redactSecrets } from '../common/redact.js';
import { errorTypeOf, recordFailure, stageloopTracer, tracingIsOff, withSpan } from './span-helpers.js';
import { secondsBetween, stageloopInstruments, type StageloopInstruments } from './metrics.js';

export interface ToolSpanOptions {
  /** Defaults to the global API tracer named `stageloop`. */
  tracer?: Tracer;
  /** Record tool arguments and results (redacted). Off by default. */
  recordContent?: boolean;
  /** Defaults to the global API meter named `stageloop`. */
  meter?: Meter;
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
    const instruments = stageloopInstruments(options.meter);
    if (tracingIsOff(tracer) && instruments === undefined) return execute();
    const attributes: Attributes = {
      [GenAiAttributes.operationName]: GenAiOperations.executeTool,
      [GenAiAttributes.toolName]: call.name,
      [GenAiAttributes.toolType]: 'function',
      [GenAiAttributes.toolCallId]: call.id,
    };
    const startedMs = performance.now();
    if (recordContent) attributes[GenAiAttributes.toolCallArguments] = argumentsValue(call.arguments);
    return withSpan(tracer, SpanNames.tool(call.name), { kind: SpanKind.INTERNAL, attributes }, async (span) => {
      try {
        const result = await execute();
        measureTool(instruments, call.name, startedMs, result.ok ? undefined : result.error.kind);
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
        measureTool(instruments, call.name, startedMs, errorTypeOf(error));
        if (span.isRecording()) recordFailure(span, error);
        throw error;
      }
    });
  };
}

/** The duration metric: by tool name and, for a failed call, the error kind (never the call id: cardinality). */
function measureTool(
  instruments: StageloopInstruments | undefined,
  tool: string,
  startedMs: number,
  errorType: string | undefined,
): void {
  instruments?.toolDuration.record(secondsBetween(startedMs, performance.now()), {
    [GenAiAttributes.operationName]: GenAiOperations.executeTool,
    [GenAiAttributes.toolName]: tool,
    ...(errorType !== undefined && { [GeneralAttributes.errorType]: errorType }),
  });
}
