// A loopback OTLP/HTTP receiver for tests: accepts POST /v1/traces and /v1/metrics with a JSON body (what the
// -otlp-http exporters send) or a protobuf one (the -otlp-proto exporters; what Jaeger and the Collector also take),
// decodes them into flat spans and metric points.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeMetricsProtobuf, decodeTracesProtobuf } from './otlp-protobuf.js';

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
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, DecodedValue> }>;
  resource: Record<string, DecodedValue>;
  scope: { name: string; version: string | undefined };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

/** One data point of a received metric (a sum's value, a histogram's count and sum). */
export interface ReceivedMetricPoint {
  metric: string;
  unit: string | undefined;
  kind: 'sum' | 'histogram' | 'gauge';
  monotonic: boolean | undefined;
  /** A sum's or histogram's aggregation temporality: 1 delta, 2 cumulative (what Prometheus takes). */
  temporality: number | undefined;
  attributes: Record<string, DecodedValue>;
  /** A sum's or gauge's value; a histogram's sum. */
  value: number;
  /** A histogram's count. */
  count: number | undefined;
  resource: Record<string, DecodedValue>;
  scope: string;
}

export interface OtlpReceiver {
  /** Every metric data point received so far, in arrival order (cumulative: later exports repeat the totals). */
  readonly metrics: ReceivedMetricPoint[];
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT, e.g. `http://127.0.0.1:40123`. */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  readonly spans: ReceivedSpan[];
  /** Requests received (any path), with their content type: a test can assert the wire format. */
  readonly requests: Array<{ path: string; contentType: string | undefined }>;
  /** Resolves once `predicate(metrics)` holds; rejects after `timeoutMs`. */
  waitForMetrics(
    predicate: (points: readonly ReceivedMetricPoint[]) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMetricPoint[]>;
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
  links?: Array<{ traceId: string; spanId: string; attributes?: OtlpKeyValue[] }>;
  status?: { code?: number; message?: string };
}

interface OtlpPoint {
  attributes?: OtlpKeyValue[];
  asInt?: number | string;
  asDouble?: number;
  count?: number | string;
  sum?: number;
}

interface OtlpMetricsRequest {
  resourceMetrics?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeMetrics?: Array<{
      scope?: { name?: string };
      metrics?: Array<{
        name: string;
        unit?: string;
        sum?: { dataPoints?: OtlpPoint[]; isMonotonic?: boolean; aggregationTemporality?: number };
        histogram?: { dataPoints?: OtlpPoint[]; aggregationTemporality?: number };
        gauge?: { dataPoints?: OtlpPoint[] };
      }>;
    }>;
  }>;
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
          links: (span.links ?? []).map((link) => ({
            traceId: link.traceId,
            spanId: link.spanId,
            attributes: decodeAttributes(link.attributes),
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

/** Flattens one OTLP JSON metrics export request into data points. */
export function decodeOtlpMetricsJson(body: OtlpMetricsRequest): ReceivedMetricPoint[] {
  const points: ReceivedMetricPoint[] = [];
  for (const resourceMetrics of body.resourceMetrics ?? []) {
    const resource = decodeAttributes(resourceMetrics.resource?.attributes);
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) {
        const kind = metric.sum ? 'sum' : metric.histogram ? 'histogram' : 'gauge';
        const data = metric.sum ?? metric.histogram ?? metric.gauge;
        for (const point of data?.dataPoints ?? [])
          points.push({
            metric: metric.name,
            unit: metric.unit || undefined,
            kind,
            monotonic: metric.sum?.isMonotonic,
            temporality: metric.sum?.aggregationTemporality ?? metric.histogram?.aggregationTemporality,
            attributes: decodeAttributes(point.attributes),
            value: Number(point.asInt ?? point.asDouble ?? point.sum ?? 0),
            count: point.count === undefined ? undefined : Number(point.count),
            resource,
            scope: scopeMetrics.scope?.name ?? '',
          });
      }
    }
  }
  return points;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetricPoint[] = [];
  const requests: Array<{ path: string; contentType: string | undefined }> = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const contentType = request.headers['content-type'];
      requests.push({ path: request.url ?? '', contentType });
      const body = await readBody(request);
      if (request.method !== 'POST' || (request.url !== '/v1/traces' && request.url !== '/v1/metrics')) {
        response.writeHead(404).end();
        return;
      }
      const protobuf = contentType?.startsWith('application/x-protobuf') === true;
      if (!protobuf && !contentType?.startsWith('application/json')) {
        response.writeHead(415, { 'content-type': 'text/plain' }).end('OTLP JSON or protobuf only');
        return;
      }
      if (request.url === '/v1/traces') {
        const decoded = protobuf ? decodeTracesProtobuf(body) : (JSON.parse(body.toString('utf8')) as unknown);
        spans.push(...decodeOtlpJson(decoded as OtlpTracesRequest));
      } else {
        const decoded = protobuf ? decodeMetricsProtobuf(body) : (JSON.parse(body.toString('utf8')) as unknown);
        metrics.push(...decodeOtlpMetricsJson(decoded as OtlpMetricsRequest));
      }
      response
        .writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' })
        .end(protobuf ? Buffer.alloc(0) : '{}');
      for (const wake of waiters) wake();
    })().catch((error: unknown) => {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;

  function waitOn<Item>(
    items: Item[],
    predicate: (items: readonly Item[]) => boolean,
    timeoutMs = 5_000,
    what: string,
  ): Promise<Item[]> {
    return new Promise((resolveWait, rejectWait) => {
      const check = () => {
        if (!predicate(items)) return;
        cleanUp();
        resolveWait([...items]);
      };
      const timer = setTimeout(() => {
        cleanUp();
        rejectWait(
          new Error(`OTLP receiver: condition not met within ${timeoutMs} ms (${items.length} ${what} received)`),
        );
      }, timeoutMs);
      const cleanUp = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    requests,
    waitFor: (predicate, timeoutMs) => waitOn(spans, predicate, timeoutMs, 'spans'),
    waitForMetrics: (predicate, timeoutMs) => waitOn(metrics, predicate, timeoutMs, 'metric points'),
    close: () =>
      new Promise<void>((resolveClose, rejectClose) => {
        server.closeAllConnections();
        server.close((error) => (error ? rejectClose(error) : resolveClose()));
      }),
  };
}
