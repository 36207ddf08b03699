// The CLI end to end: `stageloop run --trace otlp` against a loopback OTLP/HTTP receiver; the decoded spans are
// the bytes Jaeger would receive.
import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

const repositoryRoot = new URL('../../', import.meta.url);

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.OPENAI_API_KEY;
  delete childEnv.OPENAI_BASE_URL;
  delete childEnv.STAGELOOP_TRACE_CONTENT;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/stageloop.js', ...args],
      { cwd: repositoryRoot, env: childEnv, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Indented names from parentSpanId links, children in start order. */
function wireTree(spans: readonly ReceivedSpan[]): string[] {
  const lines: string[] = [];
  const visit = (span: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name}${span.kind === 3 ? ' [CLIENT]' : ''}`);
    const children = spans.filter((child) => child.parentSpanId === span.spanId);
    children.sort((a, b) =>
      BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano)
        ? -1
        : BigInt(a.startTimeUnixNano) > BigInt(b.startTimeUnixNano)
          ? 1
          : 0,
    );
    children.forEach((child) => visit(child, depth + 1));
  };
  spans.filter((span) => span.parentSpanId === undefined).forEach((root) => visit(root, 0));
  return lines;
}

// Each run starts tsx and the calculator's worker: seconds, more on a loaded machine.
describe('stageloop run --trace otlp', { timeout: 60_000 }, () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => void (receiver = await startOtlpReceiver()));
  afterEach(() => receiver.close());

  it('exports the whole run, flushed before exit, with parent links and the GenAI attributes', async () => {
    const child = await runCli(['run', '--offline', '--quiet', '--trace', 'otlp', 'What is (2 + 3) * 4?'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(child.code).toBe(0);
    expect(child.stdout).toContain('20');
    const spans = receiver.spans;
    const tree = wireTree(spans);
    // The CLI's default guards run but did nothing here: quiet guards make no span.
    const turn = (calls: string[]) => [
      '    stage think',
      '      chat stageloop-offline [CLIENT]',
      '    stage act',
      ...calls,
      '    stage observe',
      '    stage evaluate',
    ];
    expect(tree).toEqual([
      'invoke_agent react',
      '  stage context',
      '  iteration 1',
      ...turn(['      execute_tool calculator']),
      '  iteration 2',
      ...turn([]),
      '  stage summarize',
    ]);
    expect(tree.length).toBe(spans.length);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const root = spans.find((span) => span.parentSpanId === undefined)!;
    expect(root.name).toBe('invoke_agent react');
    expect(root.resource['service.name']).toBe('stageloop');
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'react',
      'stageloop.status': 'completed',
    });
    const chat = spans.find((span) => span.name === 'chat stageloop-offline')!;
    expect(chat.kind).toBe(3);
    expect(chat.attributes).toMatchObject({
      'gen_ai.provider.name': 'offline',
      'gen_ai.request.model': 'stageloop-offline',
      'stageloop.purpose': 'think',
    });
    expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
    const tool = spans.find((span) => span.name === 'execute_tool calculator')!;
    const act = spans.find((span) => span.spanId === tool.parentSpanId)!;
    expect(act.name).toBe('stage act');
    expect(spans.find((span) => span.spanId === act.parentSpanId)!.name).toBe('iteration 1');
  });

  it('--trace-content records messages and tool arguments', async () => {
    const child = await runCli(
      ['run', '--offline', '--quiet', '--trace', 'otlp', '--trace-content', 'What is (2 + 3) * 4?'],
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
    );
    expect(child.code).toBe(0);
    const chat = receiver.spans.find((span) => span.name === 'chat stageloop-offline')!;
    expect(String(chat.attributes['gen_ai.input.messages'])).toContain('What is (2 + 3) * 4?');
    const tool = receiver.spans.find((span) => span.name === 'execute_tool calculator')!;
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ expression: '(2 + 3) * 4' });
  });
});
