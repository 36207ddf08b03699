// Both protocol eras through stageloop's client (SDK v2, `versionNegotiation: 'auto'`): a server on the SDK's v2
// packages negotiates MCP 2026-07-28 (`server/discover`, a question for a person as `input_required`, trace context in
// the `_meta` envelope), and server-everything (SDK v1) falls back to the 2025-11-25 `initialize`.
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpServerPool, mcpTools, type McpServer } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { everythingStdioServer, repositoryRoot } from '../support/mcp-servers.js';

const pool = new McpServerPool();
afterEach(() => pool.closeAll());
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => {
  contextManager.disable();
  context.disable();
});

const v2Server: McpServer = {
  name: 'v2',
  command: process.execPath,
  args: ['--import', 'tsx', `${repositoryRoot}/tests/support/mcp-v2-server.ts`],
};

/** A call's text, or its error's message. */
function text(result: Awaited<ReturnType<ToolRegistry['execute']>>): string {
  return result.ok ? String(result.content) : result.error.message;
}

async function negotiated(server: McpServer) {
  const client = await pool.connection(server).client();
  return { version: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra() };
}

describe('MCP protocol eras', { timeout: 90_000 }, () => {
  it('a v2 server: 2026-07-28, its input_required question answered by the handlers, traceparent in _meta', async () => {
    const asked: unknown[] = [];
    const tools = await mcpTools(v2Server, {
      pool,
      handlers: {
        elicit: async (request) => {
          asked.push(request);
          return { action: 'accept', content: { go: true } };
        },
      },
    });
    expect(await negotiated(v2Server)).toEqual({ version: '2026-07-28', era: 'modern' });
    const registry = new ToolRegistry(tools);
    const call = (name: string, args: object = {}) =>
      registry.execute({ id: `call_${name}`, name: `v2__${name}`, arguments: JSON.stringify(args) });
    expect(await call('echo', { text: 'hi' })).toMatchObject({ ok: true, content: 'hi' });
    expect(await call('confirm')).toMatchObject({ ok: true, content: 'answered {"go":true}' });
    expect(asked).toEqual([expect.objectContaining({ message: 'Go ahead?', mode: 'form' })]);
    // The active span's context rides the request envelope (MCP 2026-07-28 `_meta` traceparent/tracestate).
    const span = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
    };
    const traced = await context.with(trace.setSpanContext(context.active(), span), () => call('meta'));
    expect(JSON.parse(text(traced))).toMatchObject({
      traceparent: `00-${span.traceId}-${span.spanId}-01`,
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    });
    expect(JSON.parse(text(await call('meta')))).not.toHaveProperty('traceparent');
  });

  it('a v1 server (server-everything): the probe falls back to the 2025-11-25 handshake', async () => {
    const server = everythingStdioServer();
    const tools = await mcpTools(server, { pool, filter: ['echo'] });
    expect(await negotiated(server)).toEqual({ version: '2025-11-25', era: 'legacy' });
    const registry = new ToolRegistry(tools);
    const result = await registry.execute({ id: 'c', name: 'everything__echo', arguments: '{"message":"old"}' });
    expect(result).toMatchObject({ ok: true, content: 'Echo: old' });
  });
});
