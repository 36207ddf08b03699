// What 2026-07-28 does differently on stageloop's MCP server, with the SDK v2 client (versionNegotiation auto) on /mcp
// of a real serve: run updates arrive on a `subscriptions/listen` stream (resources/subscribe is gone from this era),
// and the W3C trace context in a request's `_meta` makes the run a child of the caller's span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runPipeline } from '../../src/durable/durable-run.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { serverApp } from '../../src/server/app.js';
import { listen } from '../../src/server/listen.js';
import { RunHost } from '../../src/server/run-host.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, loopbackModelEnv, useServes, waitFor } from '../server/serve-support.js';
import { enableAsyncContext, makeTracing } from '../tracing/span-tree.js';
import { modernRequest } from './mcp-modern-wire.js';

const serves = useServes();
const loopback = useLoopbackServer();

async function modernClient(url: string): Promise<Client> {
  const client = new Client({ name: 'stageloop-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return client;
}

describe('MCP 2026-07-28 on /mcp', () => {
  it('sends notifications/resources/updated for a run on the listen stream subscribed to its URI', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
    loopback.server.hang();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    // /mcp loads with its first request, and follows the runs that start after it.
    const client = await modernClient(serve.running.url);
    const started = await serve.call('/v1/runs', jsonPost({ task: 'six times seven?' }));
    const { runId } = (await started.json()) as { runId: string };
    try {
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        updates.push(notification.params.uri);
      });
      const uri = `stageloop://runs/${runId}`;
      const subscription = await client.listen({ resourceSubscriptions: [uri] });
      // The second model call hangs; the cancel ends the run, and its end is an update of its resources.
      await waitFor(async () => (loopback.server.requests.length > 1 ? true : undefined), 'the second model call');
      await serve.call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
      await waitFor(async () => (updates.length > 0 ? true : undefined), 'a resources/updated notification');
      // Only the URI asked for: the timeline's URI is published too, and the listen router leaves it out.
      expect(new Set(updates)).toEqual(new Set([uri]));
      await subscription.close();
    } finally {
      await client.close();
    }
  });

  it('tasks/cancel cancels a task of the tasks extension; tasks/update says where a run is decided', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
    loopback.server.hang();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const url = serve.running.url;
    const created = await modernRequest(url, 'tools/call', { name: 'react', arguments: { task: 'six times seven?' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 500 });
    const taskId = created.taskId as string;
    await waitFor(async () => (loopback.server.requests.length > 1 ? true : undefined), 'the second model call');
    await expect(modernRequest(url, 'tasks/update', { taskId, inputResponses: {} })).rejects.toThrow(
      /asks for no input: .*stageloop approve/,
    );
    expect(await modernRequest(url, 'tasks/cancel', { taskId })).toMatchObject({ resultType: 'complete' });
    const cancelled = await waitFor(async () => {
      const task = await modernRequest(url, 'tasks/get', { taskId });
      return task.status === 'cancelled' ? task : undefined;
    }, 'the cancelled task');
    expect(cancelled).not.toHaveProperty('result');
    await expect(modernRequest(url, 'tasks/get', { taskId: 'nope' })).rejects.toThrow(/-32602.*no task nope/);
  });

  describe('trace context', () => {
    let disableContext: () => void;
    beforeAll(() => void (disableContext = enableAsyncContext()));
    afterAll(() => disableContext());

    it('a traceparent in the request’s `_meta` makes the run a child of the caller’s span', async () => {
      const tracing = makeTracing();
      const store = memoryStore();
      const host = new RunHost((assembly, input, options) =>
        runPipeline(assembly.pipeline, input, { ...options, store }),
      );
      const pipeline = definePipeline({
        name: 'react',
        iteration: [{ name: 'answer', execute: (state) => void (state.answer = '4') }],
        maxIterations: 1,
      });
      const pipelines = [{ name: 'react', maxIterations: 1, setup: [], iteration: ['answer'], finalize: [] }];
      const assemble = async () => ({ pipeline, deps: instrumentDeps({}, { tracer: tracing.tracer }) });
      const app = serverApp({ store, host, pipelines, defaultPipeline: 'react', shownSlots: [], assemble });
      const server = await listen(app, { host: '127.0.0.1', port: 0 });
      const traceId = 'a'.repeat(31) + '1';
      const spanId = 'b'.repeat(15) + '2';
      const client = await modernClient(server.url);
      try {
        const result = await client.callTool({
          name: 'react',
          arguments: { task: 'What is 2 + 2?' },
          _meta: { traceparent: `00-${traceId}-${spanId}-01` },
        });
        expect(result.content).toEqual([{ type: 'text', text: '4' }]);
        await host.drain('test over');
        const root = tracing.spans().find((span) => span.name === 'invoke_agent react');
        expect(root, 'the run was traced').toBeDefined();
        expect(root!.spanContext().traceId).toBe(traceId);
        expect(root!.parentSpanContext?.spanId).toBe(spanId);
      } finally {
        await client.close();
        await server.close();
      }
    });
  });
});
