// `stageloop worker --trace otlp` at the OTLP/HTTP wire: a run submitted inside a span (an AsyncLocalStorage context
// manager registered, as an instrumented app has) goes through a real redis-server's queue to a worker process, and
// the run's root span reaches a receiver on 127.0.0.1 in the submitter's trace, as a child of the submitter's span.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitCommand } from '../../app/cli/submit-command.js';
import { sendReply, startChatServer, type ChatServer } from '../support/chat-server.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { cleanEnvironment } from '../support/run-cli.js';
import { runRedisTests, startRedis, type RedisInstance } from '../workers/redis-server.js';
import { enableAsyncContext } from './span-tree.js';

const entry = fileURLToPath(new URL('../workers/cli-entry.ts', import.meta.url));

/** Collects a stream's text and resolves waits on it. */
function collected(stream: NodeJS.ReadableStream): { text: () => string; waitFor: (pattern: RegExp) => Promise<void> } {
  let text = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of waiters.filter((entry) => entry.pattern.test(text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    text: () => text,
    waitFor: (pattern) =>
      pattern.test(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve })),
  };
}

describe.runIf(runRedisTests)('stageloop worker --trace otlp', { timeout: 120_000 }, () => {
  let redis: RedisInstance;
  let model: ChatServer;
  let receiver: OtlpReceiver;
  let worker: ChildProcess;
  let workerLog: ReturnType<typeof collected>;
  let disableContext: () => void;

  beforeAll(async () => {
    disableContext = enableAsyncContext();
    [redis, model, receiver] = await Promise.all([startRedis(), startChatServer(), startOtlpReceiver()]);
    model.handle((request, response) => sendReply(request, response, { content: 'four' }), Number.POSITIVE_INFINITY);
    worker = spawn(process.execPath, ['--import', 'tsx', entry, 'worker', '--redis', redis.url, '--trace', 'otlp'], {
      env: cleanEnvironment({
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_MODEL: 'test-model',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    workerLog = collected(worker.stderr!);
    await workerLog.waitFor(/taking runs from/);
  }, 60_000);

  afterAll(async () => {
    if (worker?.exitCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    disableContext?.();
    await Promise.all([redis?.stop(), model?.close(), receiver?.close()]);
  });

  it('a run submitted inside a span is traced by the worker in the submitter’s trace, under the submitter’s span', async () => {
    const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
    const submitter = { traceId: hex(16), spanId: hex(8), traceFlags: TraceFlags.SAMPLED };
    const output: string[] = [];
    const sink = { write: (text: string) => void output.push(text) } as never;
    // The submit runs inside the submitter's span: nothing passes the context by hand.
    const code = await context.with(trace.setSpanContext(context.active(), submitter), () =>
      submitCommand(['--redis', redis.url, '--id', 'traced-run-1', '--quiet', 'What is 2 + 2?'], {
        stdout: sink,
        stderr: sink,
        stdin: process.stdin,
        env: cleanEnvironment({ OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'test-model' }),
        cwd: process.cwd(),
      }),
    );
    expect(code, output.join('')).toBe(0);
    await workerLog.waitFor(/job finished: run traced-run-1 completed/);
    // SIGTERM flushes the worker's spans (the batch processor's export on shutdown).
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    expect(await exited, workerLog.text()).toBe(0);
    const isRoot = (span: { name: string; attributes: Record<string, unknown> }) =>
      span.name === 'invoke_agent react' && span.attributes['stageloop.run.id'] === 'traced-run-1';
    const spans = await receiver.waitFor((received) => received.some(isRoot));
    const root = spans.find(isRoot)!;
    expect(root.traceId).toBe(submitter.traceId);
    expect(root.parentSpanId).toBe(submitter.spanId);
    const inRun = spans.filter((span) => span.traceId === submitter.traceId).map((span) => span.name);
    expect(inRun).toEqual(expect.arrayContaining(['stage think', 'chat test-model']));
  });
});
