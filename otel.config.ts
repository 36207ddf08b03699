// The OpenTelemetry SDK set-up: the one application-level file that loads the SDK (library code uses the API only).
// Used two ways:
//   - by the CLI: `startTracing('otlp' | 'console', options)` before the run, `session.finish()` after it;
//   - preloaded into anyone's app: `node --import stageloop/otel app.js` (in this repository
//     `node --import tsx --import ./otel.config.ts app.ts`) starts OTLP export at once and flushes when the event loop
//     empties (call `shutdownTracing()` yourself before `process.exit()`).
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { loadOptional, optionalParts } from './src/common/optional-package.js';
import type { Deps } from './src/engine/stage.js';
import { ConsoleWaterfallExporter } from './src/tracing/console-waterfall.js';
import { recordEvaluation, type GradedRun } from './src/tracing/evaluation-records.js';
import { instrumentDeps, traceContentFromEnv } from './src/tracing/instrument.js';
import {
  describeFailure,
  endpointIsDefault,
  exportTimeoutFromEnv,
  metricIntervalFromEnv,
  protocolFromEnv,
  reportingFailures,
  signalUrl,
  type OtlpProtocol,
} from './app/otel-export.js';

// The SDK is an optional part of stageloop: without it, importing this file is one line naming what to install.
// The protobuf exporters come with @opentelemetry/sdk-node (its own dependencies).
const [
  { AsyncLocalStorageContextManager },
  { OTLPTraceExporter },
  { OTLPMetricExporter },
  { resourceFromAttributes },
  { NodeSDK },
  { BatchSpanProcessor, SimpleSpanProcessor },
  { PeriodicExportingMetricReader },
  { ATTR_SERVICE_NAME },
  protobuf,
] = await loadOptional('tracing (stageloop/otel, --trace)', optionalParts.tracing, () =>
  Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/semantic-conventions'),
    Promise.all([
      import('@opentelemetry/exporter-trace-otlp-proto'),
      import('@opentelemetry/exporter-metrics-otlp-proto'),
    ]),
  ]),
);

export type TraceMode = 'otlp' | 'console';

export interface TextOutput {
  write(text: string): unknown;
}

export interface StartTracingOptions {
  /** Record messages, tool arguments and results (redacted). Default: STAGELOOP_TRACE_CONTENT=true. */
  recordContent?: boolean;
  /** Where the console waterfall and the one export warning go. Default: process.stderr. */
  stderr?: TextOutput;
  /** OTLP/HTTP base URL. Default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318 (Jaeger). */
  endpoint?: string;
  /** Default: OTEL_SERVICE_NAME, else `stageloop`. */
  serviceName?: string;
  /** How long one export may take, retries included. Default: OTEL_EXPORTER_OTLP_TIMEOUT, else 3,000 ms. */
  exportTimeoutMs?: number;
  /** The OTLP/HTTP wire format. Default: OTEL_EXPORTER_OTLP_PROTOCOL, else `http/json`. */
  protocol?: OtlpProtocol;
  /** How often metrics are exported while the process runs (they are always exported on finish). Default: OTEL_METRIC_EXPORT_INTERVAL, else 60 s. */
  metricIntervalMs?: number;
}

export interface TracingSession {
  readonly mode: TraceMode;
  readonly recordContent: boolean;
  /** Where OTLP spans go (otlp mode). */
  readonly tracesUrl: string | undefined;
  /** Where OTLP metrics go (otlp mode). */
  readonly metricsUrl: string | undefined;
  /** A copy of `deps` with the run tracer, the traced model and tool-call spans (see instrumentDeps). */
  instrument<Given extends Partial<Deps>>(deps: Given): Given;
  /** An eval's verdicts on a run this session traced, as `gen_ai.evaluation.result` events in that run's trace. */
  recordEvaluation(run: GradedRun): void;
  /** Flushes and stops the SDK; prints the waterfall in console mode. Bounded in time; never rejects. */
  finish(): Promise<void>;
}

let current: { session: TracingSession; stop: () => Promise<void> } | undefined;

/**
 * Starts the SDK (global tracer provider, AsyncLocalStorage context manager) for one mode. A second call while a
 * session is running returns that session. Never throws for an unreachable collector: that is reported on finish.
 */
export function startTracing(mode: TraceMode, options: StartTracingOptions = {}): TracingSession {
  if (current !== undefined) return current.session;
  const stderr = options.stderr ?? process.stderr;
  const recordContent = options.recordContent ?? traceContentFromEnv();
  const exportTimeoutMs = options.exportTimeoutMs ?? exportTimeoutFromEnv(process.env) ?? 3_000;
  const tracesUrl = mode === 'otlp' ? signalUrl('traces', options.endpoint, process.env) : undefined;
  const metricsUrl = mode === 'otlp' ? signalUrl('metrics', options.endpoint, process.env) : undefined;

  // Tracing on and nothing exported is said once per session, whichever signal failed first.
  let warned = false;
  const warnOnce = (error: unknown) => {
    if (warned) return;
    warned = true;
    stderr.write(
      `stageloop: could not export traces to ${tracesUrl} (${describeFailure(error)}); is Jaeger or a collector listening there? The run itself is unaffected.\n`,
    );
  };

  const protobufWire = (options.protocol ?? protocolFromEnv('traces', process.env)) === 'http/protobuf';
  const [{ OTLPTraceExporter: ProtobufTraceExporter }, { OTLPMetricExporter: ProtobufMetricExporter }] = protobuf;
  const waterfall = mode === 'console' ? new ConsoleWaterfallExporter() : undefined;
  const exporterSettings = { url: tracesUrl, timeoutMillis: exportTimeoutMs };
  const spanProcessor = waterfall
    ? new SimpleSpanProcessor(waterfall)
    : new BatchSpanProcessor(
        reportingFailures(
          protobufWire ? new ProtobufTraceExporter(exporterSettings) : new OTLPTraceExporter(exporterSettings),
          warnOnce,
        ),
      );
  const metricSettings = { url: metricsUrl, timeoutMillis: exportTimeoutMs };
  const metricReaders =
    mode === 'otlp'
      ? [
          new PeriodicExportingMetricReader({
            exporter: reportingFailures(
              protobufWire ? new ProtobufMetricExporter(metricSettings) : new OTLPMetricExporter(metricSettings),
              warnOnce,
            ),
            exportIntervalMillis: options.metricIntervalMs ?? metricIntervalFromEnv(process.env),
            exportTimeoutMillis: exportTimeoutMs,
          }),
        ]
      : [];
  const serviceName = options.serviceName ?? (process.env.OTEL_SERVICE_NAME || 'stageloop');
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    // Also as `serviceName`: NodeSDK merges it last, after the detected resources.
    serviceName,
    contextManager: new AsyncLocalStorageContextManager(),
    spanProcessors: [spanProcessor],
    // Given, so NodeSDK starts no metric or log exporters of its own from the environment defaults.
    metricReaders,
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();

  const stop = async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limitMs = exportTimeoutMs + 1_000;
    const expired = new Promise<'expired'>((resolveExpired) => {
      timer = setTimeout(() => resolveExpired('expired'), limitMs);
      timer.unref();
    });
    try {
      // Flush first: SimpleSpanProcessor.shutdown() drops exports still waiting for async resource attributes.
      // Spans and metrics side by side, so an absent collector costs one export timeout, not one per signal.
      const flushed = Promise.all([
        spanProcessor.forceFlush(),
        ...metricReaders.map((reader) => reader.shutdown()),
      ]).then(() => sdk.shutdown());
      const outcome = await Promise.race([flushed.then(() => 'done' as const), expired]);
      if (outcome === 'expired') warnOnce(new Error(`the export did not finish within ${limitMs} ms`));
    } catch (error) {
      warnOnce(error);
    } finally {
      clearTimeout(timer);
      // Unregister the globals so a later startTracing() can register again (the API refuses a second provider).
      trace.disable();
      metrics.disable();
      context.disable();
      propagation.disable();
    }
    if (waterfall) {
      const text = waterfall.render();
      if (text !== '') stderr.write(`\n${text}\n`);
    }
  };

  const session: TracingSession = {
    mode,
    recordContent,
    tracesUrl,
    metricsUrl,
    instrument: (deps) => instrumentDeps(deps, { recordContent }),
    // Here, not imported by the caller: the CLI bundle has its own copy of the tracer module, this file the SDK's.
    recordEvaluation: (run) => recordEvaluation(run),
    finish: async () => {
      if (current?.session === session) await shutdownTracing();
    },
  };
  current = { session, stop };
  return session;
}

/** Finishes the running session, if any: flush, shut down, print (console). Never rejects. */
export async function shutdownTracing(): Promise<void> {
  const running = current;
  if (running === undefined) return;
  current = undefined;
  await running.stop();
}

/** True when this file was loaded with `node --import ./otel.config.ts` (in the arguments or NODE_OPTIONS). */
function loadedAsPreload(): boolean {
  const self = fileURLToPath(import.meta.url);
  const words = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const preloads: string[] = [];
  words.forEach((word, index) => {
    if (word === '--import' || word === '--require' || word === '-r') preloads.push(words[index + 1] ?? '');
    else if (word.startsWith('--import=')) preloads.push(word.slice('--import='.length));
  });
  return preloads.some((target) => {
    const unquoted = target.replace(/^["']|["']$/g, '');
    if (unquoted.startsWith('file:')) return unquoted === pathToFileURL(self).href;
    if (isBareSpecifier(unquoted)) return resolvesToSelf(unquoted);
    return resolve(unquoted) === self || resolve(`${unquoted}.ts`) === self;
  });
}

const isBareSpecifier = (specifier: string) =>
  !/^(\.{1,2}\/|\/|[a-zA-Z]:[\\/])/.test(specifier) && specifier !== '.' && specifier !== '..';

/** `--import stageloop/otel`: the package resolves its own name (self-reference) to this file when installed. */
function resolvesToSelf(specifier: string): boolean {
  try {
    return import.meta.resolve(specifier) === import.meta.url;
  } catch {
    return false;
  }
}

if (loadedAsPreload()) {
  // Silence would look like "tracing works" while every span goes to a port nothing listens on.
  if (endpointIsDefault(process.env))
    process.stderr.write(
      `stageloop/otel: OTEL_EXPORTER_OTLP_ENDPOINT is not set; exporting to http://localhost:4318 (Jaeger's default). Set it to your collector's URL.\n`,
    );
  startTracing('otlp');
  // Flush when the app's event loop empties; `once` because the flush itself schedules more work.
  process.once('beforeExit', () => void shutdownTracing());
}
