import { describe, expect, it } from 'vitest';
import { SpanStatusCode, TraceFlags, type HrTime } from '@opentelemetry/api';
import { ConsoleWaterfallExporter, renderWaterfall, type WaterfallSpan } from '../../src/tracing/console-waterfall.js';

const at = (ms: number): HrTime => [1_700_000_000 + Math.floor(ms / 1000), (ms % 1000) * 1e6];

function span(
  traceId: string,
  spanId: string,
  parentId: string | undefined,
  name: string,
  startMs: number,
  endMs: number,
  extra: Partial<WaterfallSpan> = {},
): WaterfallSpan {
  const context = (id: string) => ({ traceId, spanId: id, traceFlags: TraceFlags.SAMPLED });
  return {
    name,
    spanContext: () => context(spanId),
    parentSpanContext: parentId === undefined ? undefined : context(parentId),
    startTime: at(startMs),
    endTime: at(endMs),
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
    ...extra,
  };
}

describe('renderWaterfall', () => {
  it('draws one tree per trace with durations, offsets, bars and the key attributes', () => {
    const spans = [
      span('a'.repeat(32), '02', '01', 'stage think', 0, 30, {
        status: { code: SpanStatusCode.ERROR, message: 'boom' },
        attributes: { 'error.type': 'Error' },
      }),
      span('a'.repeat(32), '01', undefined, 'invoke_agent demo', 0, 40, {
        attributes: { 'stageloop.status': 'failed', 'gen_ai.usage.input_tokens': 0 },
      }),
      span('a'.repeat(32), '03', '01', 'stage summarize', 30, 40),
      span('b'.repeat(32), '11', undefined, 'invoke_agent other', 50, 60),
    ];
    expect(renderWaterfall(spans, { barWidth: 4 }).split('\n')).toEqual([
      '|####| invoke_agent demo                        40.0 ms  +0.0 ms  status=failed',
      '|### | ├─ stage think                           30.0 ms  +0.0 ms  error=Error ERROR "boom"',
      '|   #| └─ stage summarize                       10.0 ms  +30.0 ms',
      '|####| invoke_agent other                       10.0 ms  +0.0 ms',
    ]);
  });

  it('collects exported spans and renders them on demand; reset forgets them', () => {
    const exporter = new ConsoleWaterfallExporter({ barWidth: 0 });
    const results: number[] = [];
    exporter.export([span('c'.repeat(32), '21', undefined, 'invoke_agent x', 0, 1)], (result) =>
      results.push(result.code),
    );
    expect(results).toEqual([0]);
    expect(exporter.render()).toBe('invoke_agent x                            1.0 ms  +0.0 ms');
    exporter.reset();
    expect(exporter.render()).toBe('');
  });
});
