// Small helpers shared by the tracing modules: the default tracer and how failures are recorded.
import {
  context,
  isSpanContextValid,
  ProxyTracer,
  ProxyTracerProvider,
  SpanStatusCode,
  trace,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import { GeneralAttributes, tracerName } from './attributes.js';
import { redactSecrets } from '../common/redact.js';
import { messageOf } from '../common/error-message.js';
import { packageVersion } from '../common/version.js';

/** The global API tracer for stageloop: a no-op until an SDK registers a provider. */
export function stageloopTracer(): Tracer {
  return trace.getTracer(tracerName, packageVersion());
}

/** The API's no-op provider: what a ProxyTracerProvider delegates to until an SDK registers. */
const noopTracerProvider = new ProxyTracerProvider().getDelegate();

/**
 * True when `tracer` is a global API tracer and no SDK is registered, so every span would be a no-op: the
 * tracing seams then call straight through, and tracing without an SDK costs a few property reads per call.
 */
export function tracingIsOff(tracer: Tracer): boolean {
  if (!(tracer instanceof ProxyTracer)) return false;
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === noopTracerProvider;
}

/** Low-cardinality error class: a `kind` (ModelError, ToolError) when there is one, else the error's name. */
export function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const kind = (error as { kind?: unknown }).kind;
    if (typeof kind === 'string' && kind !== '') return kind;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return '_OTHER';
}

/** Status ERROR, error.type and an exception event; messages are redacted since errors may echo requests. */
export function recordFailure(span: Span, error: unknown, errorType = errorTypeOf(error)): void {
  const message = redactSecrets(messageOf(error));
  span.setAttribute(GeneralAttributes.errorType, errorType);
  const exception: { name: string; message: string; stack?: string } = {
    name: error instanceof Error ? error.name : 'Error',
    message,
  };
  if (error instanceof Error && error.stack !== undefined) exception.stack = redactSecrets(error.stack);
  span.recordException(exception);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * Runs `body` with a new span as the active context and ends the span after it. Without an SDK (and no incoming
 * trace) the span has an invalid context: then `body` runs directly, skipping the context switch, so the API-only
 * path costs one no-op span. A sampled-out span keeps its valid context and is still propagated.
 */
export function withSpan<Result>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  body: (span: Span) => Promise<Result>,
): Promise<Result> {
  const span = tracer.startSpan(name, options);
  if (!isSpanContextValid(span.spanContext())) return body(span);
  let settled: Promise<Result>;
  try {
    settled = context.with(trace.setSpan(context.active(), span), body, undefined, span);
  } catch (error) {
    span.end();
    throw error;
  }
  // The span ends when the body settles: no async frame of its own around the body's.
  return settled.then(
    (result) => (span.end(), result),
    (error: unknown) => {
      span.end();
      throw error;
    },
  );
}
