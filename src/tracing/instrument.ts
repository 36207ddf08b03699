// One call to trace a run's dependencies: the run tracer, the model decorator and the tool-call wrapper.
import { trace, type Attributes, type Meter, type Tracer } from '@opentelemetry/api';
import type { Deps, RunEvent } from '../engine/stage.js';
import { redactSecrets } from '../common/redact.js';
import { otelRunTracer } from './otel-tracer.js';
import { traceModel } from './traced-model.js';
import { toolSpanWrapper } from './tool-spans.js';
import { GuardWatch, type WatchedSpanEvent } from './guard-watch.js';
import { guardrailAttributes, guardrailResultOf } from './guardrail-records.js';
import { GuardrailAttributes, StageloopAttributes } from './attributes.js';
import { stageloopInstruments } from './metrics.js';
import { StepSpans } from './guard-spans.js';
import { stageloopTracer, tracingIsOff } from './span-helpers.js';

export interface TracingOptions {
  /** Defaults to the global API tracer named `stageloop` (a no-op until an SDK is registered). */
  tracer?: Tracer;
  /** Record messages, tool arguments and results (redacted). Off by default. */
  recordContent?: boolean;
  /** Defaults to the global API meter named `stageloop` (a no-op until an SDK registers a MeterProvider). */
  meter?: Meter;
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
  const guards = new GuardWatch();
  const tracer = otelRunTracer({ ...options, guards });
  const traced = withSpanEvents(deps.onEvent, options, guards);
  const instrumented: Given = { ...deps, tracer };
  // Read once per run (the runner copies deps at the start): with no SDK and no meter the run gets the caller's own
  // onEvent, so it builds no events for telemetry that would go nowhere (the no-op tracer's run pays almost nothing).
  Object.defineProperty(instrumented, 'onEvent', {
    enumerable: true,
    configurable: true,
    get: () => (tracer.enabled?.() === false ? deps.onEvent : traced),
    set: (value: Deps['onEvent']) =>
      Object.defineProperty(instrumented, 'onEvent', { value, enumerable: true, configurable: true, writable: true }),
  });
  if (deps.model !== undefined) instrumented.model = traceModel(deps.model, options);
  if (deps.tools?.wrappingCalls !== undefined) instrumented.tools = deps.tools.wrappingCalls(toolSpanWrapper(options));
  return instrumented;
}

/** Who decided what and when: these events also become events on the span of the stage that emitted them. */
const spanEventTypes = new Set(['approval_requested', 'approval_decided', 'budget_decided']);
/** Fields that carry content (a call's arguments, a person's message): recorded only with recordContent. */
const contentFields = new Set(['arguments', 'message']);

function ownSpanEvent(event: RunEvent, recordContent: boolean): WatchedSpanEvent {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(event.data)) {
    if (!recordContent && contentFields.has(key)) continue;
    attributes[`stageloop.${key}`] =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : JSON.stringify(value);
  }
  return { name: `stageloop.${event.type}`, attributes, at: event.at };
}

/**
 * The deps' onEvent with the telemetry of guard decisions: a `gen_ai.guardrail.result` span event and the guard
 * actions metric for each, the approvals-waiting count, and the note that a guard stage acted (GuardWatch).
 */
function withSpanEvents(
  onEvent: Deps['onEvent'],
  options: TracingOptions,
  guards: GuardWatch,
): (event: RunEvent) => void {
  const recordContent = options.recordContent === true;
  const tracer = options.tracer ?? stageloopTracer();
  const steps = new StepSpans(tracer, guards.roots);
  return (event) => {
    if (!tracingIsOff(tracer)) steps.onEvent(event);
    const spanEvents: WatchedSpanEvent[] = [];
    if (spanEventTypes.has(event.type)) spanEvents.push(ownSpanEvent(event, recordContent));
    const result = guardrailResultOf(event.type, event.data);
    if (result !== undefined) {
      const attributes = guardrailAttributes(result, event.stage);
      const reason = attributes[GuardrailAttributes.resultReason];
      if (typeof reason === 'string') attributes[GuardrailAttributes.resultReason] = redactSecrets(reason);
      spanEvents.push({ name: GuardrailAttributes.event, attributes, at: event.at });
      const instruments = stageloopInstruments(options.meter);
      if (instruments !== undefined) {
        instruments.guardActions.add(1, {
          [StageloopAttributes.guard]: result.policy,
          [StageloopAttributes.guardResult]: result.value,
        });
        if (event.type === 'approval_requested') instruments.approvalsWaiting.add(1);
        else if (event.type === 'approval_decided' && (event.data as { by?: unknown }).by === 'person')
          instruments.approvalsWaiting.add(-1);
      }
    }
    if (!guards.note(event, spanEvents) && spanEvents.length > 0) {
      const span = trace.getActiveSpan();
      for (const spanEvent of spanEvents) span?.addEvent(spanEvent.name, spanEvent.attributes, spanEvent.at);
    }
    onEvent?.(event);
  };
}
