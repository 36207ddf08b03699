// W3C trace context as plain strings: the engine and the journal carry it as a type only; the active span's context
// is written here for the next hop (a queued job, an MCP request's `_meta`), below the tracing layer that tools may
// not import. The OTel API it reads is a no-op until an SDK is registered.
import { context, isSpanContextValid, trace, type Context } from '@opentelemetry/api';

export interface TraceHeaders {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/** The active span's context as headers for the next hop; undefined when no span is active (tracing off). */
export function currentTraceHeaders(active: Context = context.active()): TraceHeaders | undefined {
  const spanContext = trace.getSpanContext(active);
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const state = spanContext.traceState?.serialize();
  return {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
    ...(state !== undefined && state !== '' && { tracestate: state }),
  };
}
