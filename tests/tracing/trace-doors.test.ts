// Trace context across the doors: a request with a W3C traceparent to POST /v1/runs, /v1/chat/completions, /v1/chat,
// A2A (the SDK's own client) and /mcp (as a header, and in MCP's `_meta`) gives a run whose root span is a child of the caller's span, on a real
// server on 127.0.0.1; a queued job carries the submitter's context for the worker.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { context, trace } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { runPipeline } from '../../src/durable/durable-run.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { serverApp } from '../../src/server/app.js';
import { listen, type ListeningServer } from '../../src/server/listen.js';
import { RunHost } from '../../src/server/run-host.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { currentTraceHeaders, withTraceHeaders } from '../../src/tracing/trace-context.js';
import { parseRunJob } from '../../src/workers/run-job.js';
import { enableAsyncContext, makeTracing, type Tracing } from './span-tree.js';

const pipeline = definePipeline({
  name: 'react',
  iteration: [
    {
      name: 'answer',
      execute: (state) => {
        state.answer = '4';
      },
    },
  ],
  maxIterations: 1,
});
const pipelines = [{ name: 'react', maxIterations: 1, setup: [], iteration: ['answer'], finalize: [] }];

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

const listening: ListeningServer[] = [];
afterEach(async () => void (await Promise.all(listening.splice(0).map((server) => server.close()))));

async function tracedServer(tracing: Tracing): Promise<{ url: string; host: RunHost }> {
  const store = memoryStore();
  const host = new RunHost((assembly, input, options) => runPipeline(assembly.pipeline, input, { ...options, store }));
  const assemble = async () => ({ pipeline, deps: instrumentDeps({}, { tracer: tracing.tracer }) });
  const server = await listen(
    serverApp({ store, host, pipelines, defaultPipeline: 'react', shownSlots: [], assemble }),
    {
      host: '127.0.0.1',
      port: 0,
    },
  );
  listening.push(server);
  return { url: server.url, host };
}

/** A caller's span context: a fresh trace id and span id a test can look for. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const post = (traceparent: string, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', traceparent, tracestate: 'caller=1' },
  body: JSON.stringify(body),
});

const doors: Record<string, (url: string, traceparent: string) => Promise<void>> = {
  'POST /v1/runs': async (url, traceparent) => {
    const response = await fetch(`${url}/v1/runs?wait=true`, post(traceparent, { task: 'What is 2 + 2?' }));
    expect(response.status).toBeLessThan(300);
    await response.text();
  },
  'OpenAI chat completions': async (url, traceparent) => {
    const body = { model: 'react', messages: [{ role: 'user', content: 'What is 2 + 2?' }] };
    const response = await fetch(`${url}/v1/chat/completions`, post(traceparent, body));
    expect(response.status).toBe(200);
    await response.text();
  },
  'UI message stream': async (url, traceparent) => {
    const body = {
      id: 'chat-1',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'What is 2 + 2?' }] }],
    };
    const response = await fetch(`${url}/v1/chat`, post(traceparent, body));
    expect(response.status).toBe(200);
    await response.text();
  },
  'A2A (the SDK client)': async (url, traceparent) => {
    // The SDK's JSON-RPC transport with a fetch that adds the caller's trace headers, as an instrumented client does.
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('traceparent', traceparent);
      headers.set('tracestate', 'caller=1');
      return fetch(input, { ...init, headers });
    };
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    });
    const client = await new ClientFactory(options).createFromUrl(url);
    const text = { content: { $case: 'text' as const, value: 'What is 2 + 2?' }, metadata: undefined, filename: '' };
    await client.sendMessage({
      tenant: '',
      message: {
        role: Role.ROLE_USER,
        messageId: crypto.randomUUID(),
        parts: [{ ...text, mediaType: 'text/plain' }],
        taskId: '',
        contextId: '',
        extensions: [],
        metadata: {},
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
  },
  'MCP over HTTP (header)': async (url, traceparent) => {
    const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { traceparent } },
    });
    await client.connect(transport);
    try {
      await client.callTool({ name: 'react', arguments: { task: 'What is 2 + 2?' } });
    } finally {
      await client.close();
    }
  },
  'MCP (_meta.traceparent)': async (url, traceparent) => {
    const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    try {
      await client.callTool({ name: 'react', arguments: { task: 'What is 2 + 2?' }, _meta: { traceparent } });
    } finally {
      await client.close();
    }
  },
};

describe('a traceparent at each door', () => {
  it.each(Object.keys(doors))('%s: the run is a child of the caller’s span, in the caller’s trace', async (door) => {
    const tracing = makeTracing();
    const { url, host } = await tracedServer(tracing);
    const caller = callerContext();
    await doors[door]!(url, caller.traceparent);
    await host.drain('test over');
    const root = tracing.spans().find((span) => span.name === 'invoke_agent react');
    expect(root, 'the run was traced').toBeDefined();
    expect(root!.spanContext().traceId).toBe(caller.traceId);
    expect(root!.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(root!.parentSpanContext?.isRemote).toBe(true);
    const stage = tracing.spans().find((span) => span.name === 'stage answer')!;
    expect(stage.spanContext().traceId).toBe(caller.traceId);
  });

  it('a request without one starts a trace of its own', async () => {
    const tracing = makeTracing();
    const { url, host } = await tracedServer(tracing);
    const response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'What is 2 + 2?' }),
    });
    await response.text();
    await host.drain('test over');
    const root = tracing.spans().find((span) => span.name === 'invoke_agent react')!;
    expect(root.parentSpanContext).toBeUndefined();
  });
});

describe('the queue', () => {
  it('a job enqueued inside a span carries its context, and the worker side makes it the parent again', () => {
    const tracing = makeTracing();
    const submitter = tracing.tracer.startSpan('submit');
    const headers = context.with(trace.setSpan(context.active(), submitter), () => currentTraceHeaders());
    submitter.end();
    expect(headers?.traceparent).toBe(`00-${submitter.spanContext().traceId}-${submitter.spanContext().spanId}-01`);
    const job = parseRunJob('run-1', { runId: 'run-1', input: { task: 't' }, settings: {}, trace: headers });
    const parent = withTraceHeaders(job.trace, () => trace.getSpanContext(context.active()));
    expect(parent).toMatchObject({ traceId: submitter.spanContext().traceId, isRemote: true });
  });
});
