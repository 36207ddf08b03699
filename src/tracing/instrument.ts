// One call to trace a run's dependencies: the run tracer, the model decorator and the tool-call wrapper.
import { trace, type Attributes, type Tracer } from '@opentelemetry/api';
import type { Deps, RunEvent } from '../engine/stage.js';
import { otelRunTracer } from './otel-tracer.js';
import { traceModel } from './traced-model.js';
import { toolSpanWrapper } from './tool-spans.js';

export interface TracingOptions {
  /** Defaults to the global API tracer named `stageloop` (a no-op until an SDK is registered). */
  tracer?: Tracer;
  /** Record messages, tool arguments and results (redacted). Off by default. */
  recordContent?: boolean;
}

/** STAGELOOP_TRACE_CONTENT=true|1|yes turns content recording on. */
export function traceContentFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return /^(true|1|yes|on)$/i.test(env.STAGELOOP_TRACE_CONTENT?.trim() ?? '');
}

/**
 * Returns a copy of `deps` with tracing on: `tracer` set, `model` wrapped by traceModel, and `tools` given a span
 * per call when the box can wrap its calls (`wrappingCalls`, as ToolRegistry can); another box is left as is.
 */
export function instrumentDeps<Given extends Partial<Deps>>(deps: Given, options: TracingOptions = {}): Given {
  const instrumented: Given = {
    ...deps,
    tracer: otelRunTracer(options),
    onEvent: withSpanEvents(deps.onEvent, options.recordContent === true),
  };
  if (deps.model !== undefined) instrumented.model = traceModel(deps.model, options);
  if (deps.tools?.wrappingCalls !== undefined) instrumented.tools = deps.tools.wrappingCalls(toolSpanWrapper(options));
  return instrumented;
}

/** Who decided what and when: these events also become events on the span of the stage that emitted them. */
const spanEventTypes = new Set(['approval_requested', 'approval_decided', 'budget_decided']);
/** Fields that carry content (a call's arguments, a person's message): recorded only with recordContent. */
const contentFields = new Set(['arguments', 'message']);

function withSpanEvents(onEvent: Deps['onEvent'], recordContent: boolean): (event: RunEvent) => void {
  return (event) => {
    if (spanEventTypes.has(event.type)) {
      const attributes: Attributes = {};
      for (const [key, value] of Object.entries(event.data)) {
        if (!recordContent && contentFields.has(key)) continue;
        attributes[`stageloop.${key}`] =
          typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
            ? value
            : JSON.stringify(value);
      }
      trace.getActiveSpan()?.addEvent(`stageloop.${event.type}`, attributes, event.at);
    }
    onEvent?.(event);
  };
}
