// `stageloop serve --trace otlp` at the OTLP/HTTP wire: a run started over HTTP is traced as `stageloop run --trace otlp`
// traces it (same environment), and its spans reach a receiver on 127.0.0.1 by the time the server has drained.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { servingUrl, startCli } from '../support/run-cli.js';

describe('stageloop serve --trace otlp', { timeout: 120_000 }, () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => void (receiver = await startOtlpReceiver()));
  afterEach(() => receiver.close());

  it('traces every run it starts: the whole span tree of a POST /v1/runs run in the caller’s trace, flushed on SIGTERM', async () => {
    const started = startCli(['serve', '--port', '0', '--trace', 'otlp', '--no-recover'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    const base = await servingUrl(started);
    // The caller's W3C trace context: the run's root span becomes a child of the caller's span.
    const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    // With Accept: text/event-stream the answer is the run's event stream: read to its end, the run has finished.
    const response = await fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        traceparent: `00-${callerTraceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({ task: 'What is 17 * 23 + 4?' }),
    });
    const stream = await response.text();
    const runId = /"runId":"([0-9a-f]{32})"/.exec(stream)![1]!;
    expect(stream).toContain('run_finished');
    started.child.kill('SIGTERM');
    const exited = await started.done;
    expect(exited.code, exited.stderr).toBe(0);
    const isRoot = (span: ReceivedSpan) =>
      span.name === 'invoke_agent react' && span.attributes['stageloop.run.id'] === runId;
    const spans = await receiver.waitFor((received) => received.some(isRoot));
    const root = spans.find(isRoot)!;
    expect([root.traceId, root.parentSpanId]).toEqual([callerTraceId, callerSpanId]);
    expect(root.attributes).toMatchObject({ 'stageloop.status': 'completed' });
    const inRun = spans.filter((span) => span.traceId === root.traceId).map((span) => span.name);
    expect(inRun).toEqual(
      expect.arrayContaining(['stage think', 'chat stageloop-offline', 'execute_tool calculator', 'stage summarize']),
    );
    expect(receiver.requests.every((request) => request.contentType?.startsWith('application/x-protobuf'))).toBe(true);
  });
});
