// Where and how otel.config.ts exports: the OTLP/HTTP URLs, wire format and timeout from the standard OTEL_*
// variables, and an exporter wrapper that reports the first failed export instead of failing the run.
// No SDK import here: otel.config.ts loads the SDK packages themselves, as optional parts.

/** The shape of the SDK's ExportResult (code 0: success). */
interface ExportResult {
  code: number;
  error?: Error;
}

/** OTLP over HTTP: JSON (our default, what Jaeger and the Collector read) or protobuf (the SDK's default). */
export type OtlpProtocol = 'http/json' | 'http/protobuf';

export const defaultOtlpEndpoint = 'http://localhost:4318';

type Environment = Readonly<Record<string, string | undefined>>;

/** The signal's URL: OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT as is, else the base endpoint + `/v1/{signal}`. */
export function signalUrl(signal: 'traces' | 'metrics', endpoint: string | undefined, env: Environment): string {
  const own = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`];
  if (endpoint === undefined && own) return own;
  const base = endpoint ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT || defaultOtlpEndpoint);
  return `${base.replace(/\/+$/, '')}/v1/${signal}`;
}

/** True when the environment names no collector: the default (Jaeger on localhost) is then a guess. */
export function endpointIsDefault(env: Environment): boolean {
  return !env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
}

/** OTEL_EXPORTER_OTLP_PROTOCOL (or the per-signal one): `http/protobuf` or `http/json`; anything else is JSON. */
export function protocolFromEnv(signal: 'traces' | 'metrics', env: Environment): OtlpProtocol {
  const text = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  return text?.trim() === 'http/protobuf' ? 'http/protobuf' : 'http/json';
}

export function exportTimeoutFromEnv(env: Environment): number | undefined {
  const text = env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT;
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** OTEL_METRIC_EXPORT_INTERVAL in ms (the spec's variable); default 60 s. A short run exports once, on finish. */
export function metricIntervalFromEnv(env: Environment): number {
  const value = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return Number.isFinite(value) && value > 0 ? value : 60_000;
}

/** Why an export failed, in a few words (the connection error code when there is one). */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const code = (error as { code?: unknown }).code;
  const causeCode = (error.cause as { code?: unknown } | undefined)?.code;
  const label = [code, causeCode].find((value) => typeof value === 'string');
  const message = error.message || error.name;
  return typeof label === 'string' && !message.includes(label) ? `${label}: ${message}` : message;
}

/** What span and metric exporters share: export a batch, report through the callback. */
interface Exporter<Batch> {
  export(batch: Batch, resultCallback: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/**
 * Passes batches on and reports each failed export, so a missing collector costs one line, not a crash. Every
 * other member (a metric exporter's temporality selectors) is the inner exporter's own.
 */
export function reportingFailures<Batch, Inner extends Exporter<Batch>>(
  inner: Inner,
  onFailure: (error: Error | undefined) => void,
): Inner {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'export')
        return (batch: Batch, resultCallback: (result: ExportResult) => void) =>
          target.export(batch, (result) => {
            if (result.code !== 0) onFailure(result.error);
            resultCallback(result);
          });
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
