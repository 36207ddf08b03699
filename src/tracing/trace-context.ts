// W3C trace context (traceparent / tracestate) in and out: a caller's context made the parent of a run's root span,
// and the active span's context written for the next hop (a queued job, an MCP request's `_meta`). Parsed here
// rather than through the global propagator, so it works whatever the app registered (or nothing).
import { context, createTraceState, isSpanContextValid, trace, type Context } from '@opentelemetry/api';
import { currentTraceHeaders, type TraceHeaders } from '../common/trace-headers.js';

export { currentTraceHeaders, type TraceHeaders };

const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** `base` with the caller's span as the remote parent; undefined when there is no valid traceparent. */
export function contextOfTraceHeaders(headers: TraceHeaders, base: Context = context.active()): Context | undefined {
  const match = traceparentPattern.exec(headers.traceparent?.trim().toLowerCase() ?? '');
  if (match === null || match[1] === 'ff') return undefined;
  const spanContext = {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: Number.parseInt(match[4]!, 16) & 1,
    isRemote: true,
    ...(headers.tracestate && { traceState: createTraceState(headers.tracestate) }),
  };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(base, spanContext) : undefined;
}

/** Runs `body` with the caller's trace as the active context (as is when `headers` hold none). */
export function withTraceHeaders<Result>(headers: TraceHeaders | undefined, body: () => Result): Result {
  const caller = headers === undefined ? undefined : contextOfTraceHeaders(headers);
  return caller === undefined ? body() : context.with(caller, body);
}
