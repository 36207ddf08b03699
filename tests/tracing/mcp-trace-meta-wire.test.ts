// MCP calls carry the run's trace context in `_meta` (traceparent, tracestate; MCP 2026-07-28): a real MCP server
// child process answers with the `_meta` it was sent, and the traceparent names the call's own span in the run's trace.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { repositoryRoot } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';

const loopback = useLoopbackServer();
let receiver: OtlpReceiver;
beforeEach(async () => void (receiver = await startOtlpReceiver()));
afterEach(() => receiver.close());

const server = `test=${process.execPath} --import tsx ${repositoryRoot}/tests/support/mcp-test-server.ts --meta-tool`;

/** One run whose model calls the server's meta tool, then answers; the tool's answer is the `_meta` it was sent. */
async function runCallingMeta(extra: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  loopback.server
    .replyWithToolCalls([{ id: 'call_1', name: 'test__meta', arguments: '{}' }])
    .replyWith({ content: 'seen' });
  const args = ['run', '--base-url', loopback.server.url, '--model', 'test-model', '--mcp', server, ...extra];
  const run = await runCli([...args, '--quiet', 'look'], env);
  expect(run).toMatchObject({ code: 0, stdout: 'seen\n' });
  const tool = (loopback.server.lastBody?.messages ?? []).find((message) => message.role === 'tool');
  return JSON.parse(String(tool?.content)) as Record<string, unknown>;
}

describe('MCP calls carry traceparent in _meta', { timeout: 90_000 }, () => {
  it('with --trace otlp: the traceparent is the execute_tool span of the run’s trace', async () => {
    const meta = await runCallingMeta(['--trace', 'otlp'], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    const tool = receiver.spans.find((span) => span.name === 'execute_tool test__meta')!;
    const root = receiver.spans.find((span) => span.parentSpanId === undefined)!;
    expect(tool.traceId).toBe(root.traceId);
    expect(meta.traceparent).toBe(`00-${root.traceId}-${tool.spanId}-01`);
    expect(meta.idempotencyKey).toEqual(expect.any(String));
  });

  it('untraced: no traceparent in _meta', async () => {
    expect((await runCallingMeta([])).traceparent).toBeUndefined();
  });
});
