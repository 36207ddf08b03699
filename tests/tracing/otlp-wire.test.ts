import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { shutdownTracing, startTracing } from '../../otel.config.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { agentPipeline, lookupRegistry } from './fixtures.js';

const repositoryRoot = new URL('../../', import.meta.url);
const script = () =>
  new ScriptedModel([
    {
      toolCalls: [
        { name: 'lookup', arguments: '{"q":"a"}' },
        { name: 'lookup', arguments: '{"q":"b"}' },
      ],
    },
    { content: 'done' },
  ]);

/** The received spans as indented names, built from parentSpanId (so the parent links are what is compared). */
function wireTree(spans: readonly ReceivedSpan[]): string[] {
  const lines: string[] = [];
  const visit = (span: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name}${span.kind === 3 ? ' [CLIENT]' : ''}`);
    const children = spans.filter((child) => child.parentSpanId === span.spanId);
    children
      .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1))
      .forEach((child) => visit(child, depth + 1));
  };
  spans.filter((span) => span.parentSpanId === undefined).forEach((root) => visit(root, 0));
  return lines;
}

const expectedTree = [
  'stage think',
  'chat scripted-model [CLIENT]',
  'stage act',
  'execute_tool lookup',
  'execute_tool lookup',
  'stage observe',
];

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function runPreloadedApp(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', './otel.config.ts', 'tests/tracing/preload-app.ts'],
      { cwd: repositoryRoot, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
          ms: performance.now() - started,
        }),
    );
  });
}

describe('OTLP/HTTP export (otel.config.ts)', () => {
  let receiver: OtlpReceiver;
  const savedEnv = { ...process.env };
  beforeEach(async () => void (receiver = await startOtlpReceiver()));
  afterEach(async () => {
    await shutdownTracing();
    await receiver.close();
    process.env = { ...savedEnv };
  });

  it("startTracing('otlp') sends JSON spans to OTEL_EXPORTER_OTLP_ENDPOINT with names, parent links and attributes", async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    process.env.OTEL_SERVICE_NAME = 'stageloop-wire-test';
    const session = startTracing('otlp', { recordContent: false });
    expect(session.tracesUrl).toBe(`${receiver.endpoint}/v1/traces`);
    const result = await runPipeline(
      agentPipeline(),
      { task: 'look up a and b' },
      { deps: session.instrument({ model: script(), tools: lookupRegistry() }) },
    );
    await session.finish();

    const spans = receiver.spans;
    expect(
      receiver.requests.every(
        (request) =>
          ['/v1/traces', '/v1/metrics'].includes(request.path) && request.contentType?.startsWith('application/json'),
      ),
    ).toBe(true);
    const tree = wireTree(spans);
    expect(tree.slice(0, 3)).toEqual(['invoke_agent test-agent', '  stage prepare', '  iteration 1']);
    expect(tree.slice(3, 9).map((line) => line.trim())).toEqual(expectedTree);
    expect(tree.at(-1)).toBe('  stage summarize');
    expect(spans).toHaveLength(15);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    for (const span of spans) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.resource['service.name']).toBe('stageloop-wire-test');
      expect(span.scope.name).toBe('stageloop');
    }
    const root = spans.find((span) => span.parentSpanId === undefined)!;
    expect(root.kind).toBe(1);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'test-agent',
      'stageloop.run.id': result.runId,
      'stageloop.status': 'completed',
      'stageloop.stop_reason.kind': 'completed',
      'stageloop.iterations': 2,
    });
    const chat = spans.find((span) => span.name === 'chat scripted-model')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'stageloop.purpose': 'think',
    });
    const tool = spans.find((span) => span.name === 'execute_tool lookup')!;
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1_1',
    });
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
  });

  it("startTracing('console') prints the waterfall after the run, and can start again after a finished session", async () => {
    let output = '';
    const session = startTracing('console', { stderr: { write: (text: string) => (output += text) } });
    await runPipeline(
      agentPipeline(),
      { task: 't' },
      { deps: session.instrument({ model: script(), tools: lookupRegistry() }) },
    );
    expect(output).toBe('');
    await session.finish();
    const lines = output.trim().split('\n');
    expect(lines[0]).toMatch(
      /^\|#+\| invoke_agent test-agent +[\d.]+ ms {2}\+0\.0 ms {2}status=completed stop=completed by=think iterations=2$/,
    );
    expect(lines.map((line) => line.replace(/^\|[ #]+\| /, '').replace(/\s+[\d.]+ ms.*$/, ''))).toEqual([
      'invoke_agent test-agent',
      '├─ stage prepare',
      '├─ iteration 1',
      '│  ├─ stage think',
      '│  │  └─ chat scripted-model',
      '│  ├─ stage act',
      '│  │  ├─ execute_tool lookup',
      '│  │  └─ execute_tool lookup',
      '│  └─ stage observe',
      '├─ iteration 2',
      '│  ├─ stage think',
      '│  │  └─ chat scripted-model',
      '│  ├─ stage act',
      '│  └─ stage observe',
      '└─ stage summarize',
    ]);
    expect(output).toContain('signal=break_loop reason="the model answered"');
    expect(output).toContain('finish=tool_calls');
  });

  it('with nothing listening, finish() prints one warning line, does not throw, and returns in bounded time', async () => {
    const port = await closedPort();
    let output = '';
    const session = startTracing('otlp', {
      endpoint: `http://127.0.0.1:${port}`,
      exportTimeoutMs: 500,
      stderr: { write: (text: string) => (output += text) },
    });
    const result = await runPipeline(
      agentPipeline(),
      { task: 't' },
      { deps: session.instrument({ model: script(), tools: lookupRegistry() }) },
    );
    expect(result.status).toBe('completed');
    const started = performance.now();
    await expect(session.finish()).resolves.toBeUndefined();
    // Bounded, not fast: a hang would be the SDK's own retries far past this; a loaded machine must still pass.
    expect(performance.now() - started).toBeLessThan(15_000);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^stageloop: could not export traces to http://127.0.0.1:${port}/v1/traces \\(.*ECONNREFUSED.*\\); is Jaeger`,
      ),
    );
  }, 60_000);
});

describe('node --import ./otel.config.ts (preloaded into an app)', () => {
  it('exports the app’s run to the collector and exits cleanly', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const child = await runPreloadedApp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      expect(child).toMatchObject({ code: 0, stdout: 'completed: preloaded answer\n', stderr: '' });
      // The child flushed before exiting: everything is here already.
      const spans = receiver.spans;
      expect(wireTree(spans).map((line) => line.trim())).toEqual([
        'invoke_agent preload-app',
        'stage prepare',
        'iteration 1',
        ...expectedTree.slice(0, 4),
        'stage observe',
        'iteration 2',
        'stage think',
        'chat scripted-model [CLIENT]',
        'stage act',
        'stage observe',
        'stage summarize',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('with nothing listening: exit code 0, exactly one warning line on stderr, bounded time', async () => {
    const port = await closedPort();
    const child = await runPreloadedApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    });
    expect(child.code).toBe(0);
    expect(child.stdout).toBe('completed: preloaded answer\n');
    const lines = child.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^stageloop: could not export traces to .*ECONNREFUSED/);
    // Bounded, not fast: the process must not wait out the exporter's retries; a loaded machine must still pass.
    expect(child.ms).toBeLessThan(45_000);
  }, 90_000);
});
