// `--trace console`: a span exporter that keeps finished spans and prints them after the run as an indented
// waterfall with durations and the key attributes. Typed structurally so src/ depends on @opentelemetry/api only.
import {
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type HrTime,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api';
import { GenAiAttributes, GeneralAttributes, StageloopAttributes } from './attributes.js';

/** The fields of an SDK ReadableSpan the waterfall reads. */
export interface WaterfallSpan {
  readonly name: string;
  readonly spanContext: () => SpanContext;
  readonly parentSpanContext?: SpanContext | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
}

/** Same shape as @opentelemetry/core's ExportResult (0 = success). */
export interface WaterfallExportResult {
  code: 0 | 1;
  error?: Error;
}

export interface WaterfallOptions {
  /** Width of the timeline bar in characters (0 hides it). Default 24. */
  barWidth?: number;
}

/** Attributes shown after the duration, with their short labels. */
const shownAttributes: Array<[string, string]> = [
  [StageloopAttributes.status, 'status'],
  [StageloopAttributes.stopReasonKind, 'stop'],
  [StageloopAttributes.stopReasonStage, 'by'],
  [StageloopAttributes.iterations, 'iterations'],
  [StageloopAttributes.purpose, 'purpose'],
  [GenAiAttributes.responseModel, 'model'],
  [GenAiAttributes.responseFinishReasons, 'finish'],
  [GenAiAttributes.usageInputTokens, 'in'],
  [GenAiAttributes.usageOutputTokens, 'out'],
  [GenAiAttributes.usageCacheReadInputTokens, 'cached'],
  [GenAiAttributes.toolCallId, 'call'],
  [StageloopAttributes.signal, 'signal'],
  [StageloopAttributes.signalReason, 'reason'],
  [GeneralAttributes.errorType, 'error'],
];

const toMs = (time: HrTime) => time[0] * 1e3 + time[1] / 1e6;

function formatValue(value: AttributeValue): string {
  const text = Array.isArray(value) ? value.join(',') : String(value);
  const short = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return /[\s"]/.test(short) ? JSON.stringify(short) : short;
}

function describe(span: WaterfallSpan): string {
  const parts: string[] = [];
  for (const [key, label] of shownAttributes) {
    const value = span.attributes[key];
    if (value === undefined || (value === 0 && (label === 'cached' || label === 'in' || label === 'out'))) continue;
    parts.push(`${label}=${formatValue(value)}`);
  }
  if (span.status.code === SpanStatusCode.ERROR)
    parts.push(`ERROR${span.status.message ? ` ${JSON.stringify(span.status.message)}` : ''}`);
  return parts.join(' ');
}

/** Renders spans (any order, any number of traces) as one indented tree per trace, children by start time. */
export function renderWaterfall(spans: readonly WaterfallSpan[], options: WaterfallOptions = {}): string {
  const barWidth = options.barWidth ?? 24;
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string, WaterfallSpan[]>();
  const roots: WaterfallSpan[] = [];
  for (const span of spans) {
    const parentId = span.parentSpanContext?.spanId;
    if (parentId === undefined || !ids.has(parentId)) roots.push(span);
    else children.set(parentId, [...(children.get(parentId) ?? []), span]);
  }
  const byStart = (a: WaterfallSpan, b: WaterfallSpan) => toMs(a.startTime) - toMs(b.startTime);
  const lines: string[] = [];
  for (const root of [...roots].sort(byStart)) {
    const origin = toMs(root.startTime);
    const total = Math.max(toMs(root.endTime) - origin, 1e-3);
    const visit = (span: WaterfallSpan, prefix: string, branch: string, depth: number) => {
      const start = toMs(span.startTime) - origin;
      const duration = toMs(span.endTime) - toMs(span.startTime);
      let bar = '';
      if (barWidth > 0) {
        const from = Math.min(barWidth - 1, Math.floor((start / total) * barWidth));
        const length = Math.max(1, Math.min(barWidth - from, Math.round((duration / total) * barWidth)));
        bar = `|${' '.repeat(from)}${'#'.repeat(length)}${' '.repeat(barWidth - from - length)}| `;
      }
      const timing = `${duration.toFixed(1).padStart(9)} ms  +${start.toFixed(1)} ms`;
      const label = `${prefix}${branch}${span.name}`;
      const details = describe(span);
      lines.push(`${bar}${label.padEnd(Math.max(36, label.length + 1))}${timing}${details ? `  ${details}` : ''}`);
      const kids = [...(children.get(span.spanContext().spanId) ?? [])].sort(byStart);
      const childPrefix = depth === 0 ? '' : `${prefix}${branch === '└─ ' ? '   ' : '│  '}`;
      kids.forEach((child, index) => visit(child, childPrefix, index === kids.length - 1 ? '└─ ' : '├─ ', depth + 1));
    };
    visit(root, '', '', 0);
  }
  return lines.join('\n');
}

/** A SpanExporter (structurally) that collects spans in memory for renderWaterfall. */
export class ConsoleWaterfallExporter {
  private spans: WaterfallSpan[] = [];

  constructor(private readonly options: WaterfallOptions = {}) {}

  export(spans: WaterfallSpan[], resultCallback: (result: WaterfallExportResult) => void): void {
    this.spans.push(...spans);
    resultCallback({ code: 0 });
  }

  /** The collected spans as a waterfall; empty text when nothing was traced. */
  render(): string {
    return renderWaterfall(this.spans, this.options);
  }

  /** Forgets the collected spans (e.g. between runs). */
  reset(): void {
    this.spans = [];
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
