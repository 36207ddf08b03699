/** @module stageloop/tracing */
// 'stageloop/tracing': OpenTelemetry spans through @opentelemetry/api only (a dependency); the SDK is started by
// 'stageloop/otel'. Secrets are redacted from the content a span may carry.
export { otelRunTracer, type OtelRunTracerOptions } from '../tracing/otel-tracer.js';
export { traceModel, type TraceModelOptions } from '../tracing/traced-model.js';
export { toolSpanWrapper, type ToolSpanOptions } from '../tracing/tool-spans.js';
export { instrumentDeps, traceContentFromEnv, type TracingOptions } from '../tracing/instrument.js';
export {
  ConsoleWaterfallExporter,
  renderWaterfall,
  type WaterfallSpan,
  type WaterfallOptions,
  type WaterfallExportResult,
} from '../tracing/console-waterfall.js';
export { redactSecrets, redactValue, redactedJson } from '../common/redact.js';
export {
  GenAiAttributes,
  GenAiOperations,
  GeneralAttributes,
  StageloopAttributes,
  SpanNames,
  tracerName,
  genAiConventionsVersion,
} from '../tracing/attributes.js';
