// Whole ReAct runs whose tools come from real MCP servers, against the loopback Chat Completions server.
import { afterEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { McpServerPool, loadMcpTools, type McpServer } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import {
  everythingStdioServer,
  newLogFile,
  readLog,
  startHttpTestServer,
  stdioTestServer,
  waitForLog,
  type RunningServer,
} from '../support/mcp-servers.js';

const loopback = useLoopbackServer({ timeoutMs: 5_000 });
const pool = new McpServerPool();
const running: RunningServer[] = [];
afterEach(async () => {
  await pool.closeAll();
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function startRun(servers: McpServer[], task: string, signal?: AbortSignal) {
  const tools = new ToolRegistry(await loadMcpTools(servers, { pool }));
  const events: RunEvent[] = [];
  const deps = { model: loopback.model(), tools, onEvent: (event: RunEvent) => events.push(event) };
  const result = runPipeline(reactPipeline(), { task }, { deps, ...(signal ? { signal } : {}) });
  return { result, events };
}

/** The tool messages of the last model request (it carries the whole history). */
const toolMessages = () => loopback.server.lastBody!.messages.filter((message) => message.role === 'tool');

describe('ReAct with MCP tools', () => {
  it('calls a tool of the SDK test server and of server-everything over stdio', async () => {
    loopback.server
      .replyWithToolCalls([
        { name: 'test__echo', arguments: '{"text":"seventeen"}', id: 'call_a' },
        { name: 'everything__get-sum', arguments: '{"a":17,"b":25}', id: 'call_b' },
      ])
      .replyWith({ content: 'The sum is 42.' });
    const log = newLogFile();
    const { result } = await startRun([stdioTestServer(log), everythingStdioServer()], 'Add 17 and 25');
    expect(await result).toMatchObject({ status: 'completed', answer: 'The sum is 42.' });
    loopback.server.assertConsumed();
    const sent = loopback.server.requests[0]!.body.tools!.map((tool) => tool.function);
    expect(sent.find((tool) => tool.name === 'everything__get-sum')).toMatchObject({
      parameters: { type: 'object', required: ['a', 'b'] },
    });
    expect(toolMessages().map((message) => [message.tool_call_id, message.content])).toEqual([
      ['call_a', 'seventeen'],
      ['call_b', expect.stringContaining('42')],
    ]);
  });

  it('calls a tool over Streamable HTTP', async () => {
    const log = newLogFile();
    const http = await startHttpTestServer(log);
    running.push(http);
    loopback.server
      .replyWithToolCalls([{ name: 'web__echo', arguments: '{"text":"over http"}', id: 'call_a' }])
      .replyWith({ content: 'done' });
    const { result } = await startRun([{ name: 'web', url: http.url }], 'Echo over HTTP');
    expect(await result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(toolMessages()[0]).toMatchObject({ tool_call_id: 'call_a', content: 'over http' });
  });

  it('a server killed mid-call: the model gets a tool error and the run goes on', async () => {
    const log = newLogFile();
    loopback.server
      .replyWithToolCalls([{ name: 'test__slow', arguments: '{"ms":20000}', id: 'call_a' }])
      .replyWith({ content: 'The tool server crashed; no result.' });
    const { result } = await startRun([stdioTestServer(log)], 'Wait a while');
    const started = await waitForLog(log, (entry) => entry.event === 'call');
    process.kill(started.pid, 'SIGKILL');
    expect(await result).toMatchObject({ status: 'completed', answer: 'The tool server crashed; no result.' });
    expect(toolMessages()[0]!.content).toMatch(
      /^Error \(failed\).*the MCP server "test" closed the connection during the call/s,
    );
  });

  it('an argument violating the server schema goes back to the model and never reaches the server', async () => {
    const log = newLogFile();
    loopback.server
      .replyWithToolCalls([{ name: 'test__slow', arguments: '{"ms":"soon"}', id: 'call_a' }])
      .replyWithToolCalls([{ name: 'test__slow', arguments: '{"ms":1}', id: 'call_b' }])
      .replyWith({ content: 'waited' });
    const { result, events } = await startRun([stdioTestServer(log)], 'Wait 1 ms');
    expect(await result).toMatchObject({ status: 'completed', answer: 'waited' });
    expect(toolMessages().map((message) => message.content)).toEqual([
      expect.stringMatching(/^Error \(invalid_arguments\).*arguments\/ms must be integer/s),
      'waited 1 ms',
    ]);
    expect(events.filter((event) => event.type === 'tool_result').map((event) => event.data.ok)).toEqual([false, true]);
    expect(
      readLog(log)
        .filter((entry) => entry.event === 'call')
        .map((entry) => entry.arguments),
    ).toEqual([{ ms: 1 }]);
  });

  it('cancelling the run during an MCP call cancels the call on the server', async () => {
    const log = newLogFile();
    loopback.server.replyWithToolCalls([{ name: 'test__slow', arguments: '{"ms":20000}', id: 'call_a' }]);
    const controller = new AbortController();
    const { result } = await startRun([stdioTestServer(log)], 'Wait a while', controller.signal);
    await waitForLog(log, (entry) => entry.event === 'call');
    controller.abort(new Error('user pressed Ctrl-C'));
    expect(await result).toMatchObject({ status: 'cancelled', stopReason: { kind: 'cancelled' } });
    expect(await waitForLog(log, (entry) => entry.event === 'cancelled')).toMatchObject({
      tool: 'slow',
      reason: expect.stringContaining('user pressed Ctrl-C'),
    });
  });
});
