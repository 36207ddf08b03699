// A RunTracer on @opentelemetry/api: one span per run, iteration and stage, each made the active context
// around its body so model and tool spans nest under the stage that made the call.
import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Link,
  type Meter,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { isPromiseLike } from '../common/promise-like.js';
import type { RunOutcomeSummary, RunTraceInfo, RunTracer } from '../engine/stage.js';
import { contextOfTraceHeaders, currentTraceHeaders, type TraceHeaders } from './trace-context.js';
import { isSignal } from '../engine/signal.js';
import { GenAiAttributes, GenAiOperations, GeneralAttributes, SpanNames, StageloopAttributes } from './attributes.js';
import { redactedJson, redactSecrets } from '../common/redact.js';
import { errorTypeOf, recordFailure, stageloopTracer, tracingIsOff } from './span-helpers.js';
import { isGuardStage, noteQuietStages } from './quiet-guards.js';
import type { GuardWatch } from './guard-watch.js';
import { watchedGuardStage } from './guard-spans.js';
import { secondsBetween, stageloopInstruments, type StageloopInstruments } from './metrics.js';

export interface OtelRunTracerOptions {
  /** Defaults to `trace.getTracer('stageloop', version)` from the global API (a no-op without an SDK). */
  tracer?: Tracer;
  /** Record the run's answer on the root span (redacted). Off by default. */
  recordContent?: boolean;
  /** Defaults to the global API meter named `stageloop` (a no-op until an SDK registers a MeterProvider). */
  meter?: Meter;
  /**
   * Where the guard stages' events are seen (instrumentDeps passes its own): with it, a guard stage that did nothing
   * makes no span. Without it every stage has a span.
   */
  guards?: GuardWatch;
}

/** The root span of each run that ended lately, by run id: an eval's verdicts join the graded run's trace. */
const endedRuns = new Map<string, SpanContext>();
const endedRunsKept = 1024;

/** The root span context of a run this process traced and that has ended (the latest 1024), else undefined. */
export function runSpanContext(runId: string): SpanContext | undefined {
  return endedRuns.get(runId);
}

function rememberRun(runId: string, span: Span): void {
  endedRuns.delete(runId);
  endedRuns.set(runId, span.spanContext());
  if (endedRuns.size > endedRunsKept) endedRuns.delete(endedRuns.keys().next().value!);
}

/** Pipelines that coordinate several agents' work: their root span is `invoke_workflow`, not `invoke_agent`. */
const workflowPipelines = new Set(['plan-execute-replan']);

/** Agent runs in a result's `agents` tree, at every depth. */
function agentsCount(result: RunOutcomeSummary): number {
  const count = (nodes: unknown): number =>
    Array.isArray(nodes)
      ? nodes.reduce<number>((total, node) => total + 1 + count((node as { children?: unknown }).children), 0)
      : 0;
  return count((result as { agents?: unknown }).agents);
}

/** The run-level metrics of a finished run. */
function recordRun(
  instruments: StageloopInstruments,
  pipeline: string,
  workflow: boolean,
  startedMs: number,
  result: RunOutcomeSummary,
): void {
  const name = workflow ? GenAiAttributes.workflowName : GenAiAttributes.agentName;
  const seconds = secondsBetween(startedMs, performance.now());
  const failure = result.status === 'failed' ? { [GeneralAttributes.errorType]: result.stopReason.kind } : {};
  if (workflow) instruments.workflowDuration.record(seconds, { [name]: pipeline, ...failure });
  else instruments.agentDuration.record(seconds, { [name]: pipeline, ...failure });
  instruments.runs.add(1, {
    [name]: pipeline,
    [StageloopAttributes.status]: result.status,
    [StageloopAttributes.stopReasonKind]: result.stopReason.kind,
  });
  instruments.iterations.record(result.iterations, { [name]: pipeline });
}

/**
 * Runs `body` in an INTERNAL span made the active context and ends the span when the body settles: no async frame,
 * and a body that answers synchronously (most stages) ends its span at once. A throw is recorded as ERROR;
 * `onResult` labels the span. Without an SDK (and no incoming trace) the span is a no-op: the body runs directly.
 */
function inSpan<Result>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  body: () => Result | Promise<Result>,
  onResult?: (span: Span, result: Result) => void,
  links?: Link[],
): Result | Promise<Result> {
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, ...(links && { links }) });
  if (!isSpanContextValid(span.spanContext())) return body();
  let returned: Result | Promise<Result>;
  try {
    returned = context.with(trace.setSpan(context.active(), span), body);
  } catch (error) {
    return failSpan(span, error);
  }
  // Module-level enders, no closures of its own: a span costs the SDK's work and little more.
  return isPromiseLike(returned)
    ? Promise.resolve(returned).then(
        (result) => endSpan(span, result, onResult),
        (error: unknown) => failSpan(span, error),
      )
    : endSpan(span, returned, onResult);
}

function endSpan<Result>(span: Span, result: Result, onResult?: (span: Span, result: Result) => void): Result {
  try {
    if (onResult !== undefined && span.isRecording()) onResult(span, result);
  } finally {
    span.end();
  }
  return result;
}

function failSpan(span: Span, error: unknown): never {
  if (span.isRecording()) recordFailure(span, error);
  span.end();
  throw error;
}

/** A stage span's label for the signal its stage returned. */
function labelSignal(span: Span, signal: unknown): void {
  if (!isSignal(signal)) return;
  span.setAttributes({
    [StageloopAttributes.signal]: signal.type,
    [StageloopAttributes.signalReason]: signal.reason,
    [StageloopAttributes.signalKind]: signal.kind,
  });
}

/** Root attributes read from the finished run. */
function summaryAttributes(result: RunOutcomeSummary): Attributes {
  const attributes: Attributes = {
    [StageloopAttributes.status]: result.status,
    [StageloopAttributes.stopReasonKind]: result.stopReason.kind,
    [StageloopAttributes.stopReasonMessage]: redactSecrets(result.stopReason.message),
    [StageloopAttributes.iterations]: result.iterations,
    [GenAiAttributes.usageInputTokens]: result.usage.inputTokens,
    [GenAiAttributes.usageOutputTokens]: result.usage.outputTokens,
    [GenAiAttributes.usageCacheReadInputTokens]: result.usage.cachedInputTokens,
  };
  if (result.stopReason.stage !== null) attributes[StageloopAttributes.stopReasonStage] = result.stopReason.stage;
  // The limits in force (the guards' limits slot): stageloop.limit.max_tokens and so on; -1 for one that was off.
  const limits = (result as { state?: { limits?: unknown } }).state?.limits;
  if (typeof limits === 'object' && limits !== null) {
    for (const [name, value] of Object.entries(limits)) {
      if (typeof value === 'number' || value === null)
        attributes[`${StageloopAttributes.limitPrefix}${snakeCase(name)}`] = value ?? -1;
    }
  }
  return attributes;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The cause kept on a failed RunResult, if the summary is one. */
function failureCause(result: RunOutcomeSummary): unknown {
  const error = (result as { error?: { cause?: unknown } }).error;
  return error?.cause;
}

function answerOf(result: RunOutcomeSummary): string | null {
  const answer = (result as { answer?: unknown }).answer;
  return typeof answer === 'string' ? answer : null;
}

/** A resume's link to the root span of the run's first trace, when the journal kept a valid one. */
function firstTraceLink(first: TraceHeaders | undefined): Link[] | undefined {
  const linked = first && contextOfTraceHeaders(first, ROOT_CONTEXT);
  const spanContext = linked && trace.getSpanContext(linked);
  return spanContext === undefined ? undefined : [{ context: spanContext }];
}

export function otelRunTracer(options: OtelRunTracerOptions = {}): RunTracer {
  const tracer = options.tracer ?? stageloopTracer();
  const recordContent = options.recordContent ?? false;
  const guards = options.guards;
  return {
    enabled: () => !tracingIsOff(tracer) || stageloopInstruments(options.meter) !== undefined,

    run<Result extends RunOutcomeSummary>(info: RunTraceInfo, body: () => Promise<Result>) {
      const instruments = stageloopInstruments(options.meter);
      const off = tracingIsOff(tracer);
      if (off && instruments === undefined) return body();
      const workflow = workflowPipelines.has(info.pipeline);
      const startedMs = performance.now();
      const measured = (result: Result): Result => {
        if (instruments !== undefined) recordRun(instruments, info.pipeline, workflow, startedMs, result);
        return result;
      };
      if (off) return body().then(measured);
      const attributes: Attributes = workflow
        ? {
            [GenAiAttributes.operationName]: GenAiOperations.invokeWorkflow,
            [GenAiAttributes.workflowName]: info.pipeline,
            [StageloopAttributes.runId]: info.runId,
          }
        : {
            [GenAiAttributes.operationName]: GenAiOperations.invokeAgent,
            [GenAiAttributes.agentName]: info.pipeline,
            [StageloopAttributes.runId]: info.runId,
          };
      const name = workflow ? SpanNames.workflow(info.pipeline) : SpanNames.run(info.pipeline);
      const onRootSpan = info.onRootSpan;
      const rooted = () => {
        const root = onRootSpan && currentTraceHeaders();
        if (root !== undefined) onRootSpan?.(root);
        if (guards === undefined) return body();
        guards.roots.set(info.runId, context.active());
        return body().finally(() => guards.forget(info.runId));
      };
      return Promise.resolve(
        inSpan(
          tracer,
          name,
          attributes,
          rooted,
          (span, result) => {
            span.setAttributes(summaryAttributes(result));
            span.setAttribute(StageloopAttributes.agentsCount, agentsCount(result));
            rememberRun(info.runId, span);
            if (result.status === 'failed') {
              const cause = failureCause(result);
              span.setAttribute(GeneralAttributes.errorType, cause === undefined ? '_OTHER' : errorTypeOf(cause));
              span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(result.stopReason.message) });
            }
            const answer = recordContent ? answerOf(result) : null;
            if (answer !== null) {
              const output = [{ role: 'assistant', parts: [{ type: 'text', content: answer }] }];
              span.setAttribute(GenAiAttributes.outputMessages, redactedJson(output));
            }
          },
          firstTraceLink(info.linkTo),
        ),
      ).then(measured);
    },

    iteration(info, body) {
      if (tracingIsOff(tracer)) return body();
      return Promise.resolve(
        inSpan(tracer, SpanNames.iteration(info.iteration), { [StageloopAttributes.iteration]: info.iteration }, body),
      );
    },

    stage(info, body) {
      if (tracingIsOff(tracer)) return body();
      if (info.quiet === true) noteQuietStages([info]);
      if (guards !== undefined && (info.quiet === true || isGuardStage(info.name)))
        return watchedGuardStage(tracer, guards, info, body);
      const attributes: Attributes = {
        [StageloopAttributes.stageName]: info.name,
        [StageloopAttributes.zone]: info.zone,
        [StageloopAttributes.iteration]: info.iteration,
      };
      return inSpan(tracer, SpanNames.stage(info.name), attributes, body, labelSignal);
    },
  };
}
