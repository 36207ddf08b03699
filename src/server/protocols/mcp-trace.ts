// W3C trace context in MCP's `_meta` (stdio has no headers): the caller's `traceparent`/`tracestate` in a request.
import type { TraceHeaders } from '../../tracing/trace-context.js';

/** The trace context a request's `_meta` carries (strings only; anything else is ignored). */
export function traceOfMeta(meta: Record<string, unknown> | undefined): TraceHeaders {
  return {
    traceparent: typeof meta?.traceparent === 'string' ? meta.traceparent : undefined,
    tracestate: typeof meta?.tracestate === 'string' ? meta.tracestate : undefined,
  };
}
