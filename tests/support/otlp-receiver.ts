// A loopback OTLP/HTTP trace receiver for tests: accepts POST /v1/traces with a JSON body (what
// @opentelemetry/exporter-trace-otlp-http sends, and what Jaeger would receive), decodes it into flat spans.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type DecodedValue = string | number | boolean | null | DecodedValue[] | { [key: string]: DecodedValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, DecodedValue>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string | undefined };
  events: Array<{ name: string; attributes: Record<string, DecodedValue> }>;
  resource: Record<string, DecodedValue>;
  scope: { name: string; version: string | undefined };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT, e.g. `http://127.0.0.1:40123`. */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  readonly spans: ReceivedSpan[];
  /** Requests received (any path), with their content type: a test can assert the wire format. */
  readonly requests: Array<{ path: string; contentType: string | undefined }>;
  /** Resolves once `predicate(spans)` holds; rejects after `timeoutMs`. */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: string;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[];
  events?: Array<{ name: string; attributes?: OtlpKeyValue[] }>;
  status?: { code?: number; message?: string };
}

interface OtlpTracesRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string; version?: string }; spans?: OtlpSpan[] }>;
  }>;
}

function decodeValue(value: OtlpAnyValue | undefined): DecodedValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodeValue);
  if (value.kvlistValue !== undefined) return decodeAttributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}

function decodeAttributes(list: OtlpKeyValue[] | undefined): Record<string, DecodedValue> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, decodeValue(entry.value)]));
}

/** Flattens one OTLP JSON export request into spans. */
export function decodeOtlpJson(body: OtlpTracesRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = decodeAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = { name: scopeSpans.scope?.name ?? '', version: scopeSpans.scope?.version };
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId : undefined,
          name: span.name,
          kind: span.kind ?? 0,
          attributes: decodeAttributes(span.attributes),
          status: { code: span.status?.code ?? 0, message: span.status?.message || undefined },
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: decodeAttributes(event.attributes),
          })),
          resource,
          scope,
          startTimeUnixNano: String(span.startTimeUnixNano),
          endTimeUnixNano: String(span.endTimeUnixNano),
        });
      }
    }
  }
  return spans;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: Array<{ path: string; contentType: string | undefined }> = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const contentType = request.headers['content-type'];
      requests.push({ path: request.url ?? '', contentType });
      const body = await readBody(request);
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (!contentType?.startsWith('application/json')) {
        response.writeHead(415, { 'content-type': 'text/plain' }).end('this test receiver decodes OTLP JSON only');
        return;
      }
      spans.push(...decodeOtlpJson(JSON.parse(body.toString('utf8')) as OtlpTracesRequest));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    })().catch((error: unknown) => {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    waitFor(predicate, timeoutMs = 5_000) {
      return new Promise((resolveWait, rejectWait) => {
        const check = () => {
          if (!predicate(spans)) return;
          cleanUp();
          resolveWait([...spans]);
        };
        const timer = setTimeout(() => {
          cleanUp();
          rejectWait(
            new Error(`OTLP receiver: condition not met within ${timeoutMs} ms (${spans.length} spans received)`),
          );
        }, timeoutMs);
        const cleanUp = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolveClose, rejectClose) => {
        server.closeAllConnections();
        server.close((error) => (error ? rejectClose(error) : resolveClose()));
      }),
  };
}
