// The MCP client's protocol features outside the conformance suite, against the SDK test server as a child process:
// progress (a token on every call, each notification seen, each one resetting the quiet timeout), tools/list_changed
// (the list read again, the taint policy reading the tools' new traits), and a start-up error quoting the stderr lines
// that say what went wrong.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import { mcpTools, type McpProgress } from '../../src/tools/mcp/index.js';
import { tellingLines } from '../../src/tools/mcp/stderr-lines.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { newLogFile, stdioTestServer } from '../support/mcp-servers.js';
import { call, useMcpPool } from './mcp-tools-fixtures.js';

const { pool } = useMcpPool();
const loopback = useLoopbackServer({ timeoutMs: 10_000 });

/** The test server with its progress tools, a call allowed `timeout` seconds of silence. */
async function progressTools(timeout: number, onProgress?: (progress: McpProgress) => void) {
  const server = { ...stdioTestServer(newLogFile(), 'test', ['--progress-tools']), timeout };
  const tools = await mcpTools(server, { pool, ...(onProgress && { onProgress }) });
  return { registry: new ToolRegistry(tools), connection: pool.connection(server) };
}

describe('MCP client: progress', () => {
  it('sends a progress token with every call, and each notification reaches onProgress', async () => {
    const seen: McpProgress[] = [];
    const { registry } = await progressTools(30, (progress) => seen.push(progress));
    // 50 ms apart: the SDK hands a notification to its handler asynchronously, so one sent in the same
    // millisecond as the next may reach it after the result.
    const result = await registry.execute(call('test__ticking', { steps: 3, everyMs: 50 }));
    expect(result).toMatchObject({
      ok: true,
      content: expect.stringMatching(/^ticked 3 times with progress token \d+$/),
    });
    // The last notification may come with the result, after the SDK dropped the call's handler: the first two always arrive.
    expect(seen.slice(0, 2)).toEqual([
      { server: 'test', tool: 'ticking', progress: 1, total: 3, message: 'step 1' },
      { server: 'test', tool: 'ticking', progress: 2, total: 3, message: 'step 2' },
    ]);
  });

  it('a call that reports progress outlives the quiet timeout; a silent one of the same length times out', async () => {
    // 2 s of allowed silence; both calls take about 4 s, one reporting every 400 ms.
    const { registry } = await progressTools(2);
    const [ticking, silent] = await registry.executeAll([
      call('test__ticking', { steps: 10, everyMs: 400 }),
      { ...call('test__slow', { ms: 4_000 }), id: 'call_2' },
    ]);
    expect(ticking).toMatchObject({ ok: true, content: expect.stringContaining('ticked 10 times') });
    expect(silent).toMatchObject({
      ok: false,
      error: { kind: 'timeout', message: expect.stringContaining('the MCP server "test" did not answer in time') },
    });
  }, 30_000);
});

describe('MCP client: tools/list_changed', () => {
  it('lists the tools again: a dropped tool fails saying so, and a tool that lost its read-only mark is a write', async () => {
    const { registry, connection } = await progressTools(30);
    expect(registry.effectsOf('test__echo').effects).toBe('read');
    const changed = new Promise((resolve) => connection.onToolsChanged(resolve));
    expect(await registry.execute(call('test__change_tools', {}))).toMatchObject({ ok: true, content: 'changed' });
    await changed;
    expect(connection.listedTools!.map((tool) => tool.name)).toContain('added');
    expect(registry.effectsOf('test__echo').effects).toBe('write');
    expect(await registry.execute(call('test__fail', {}))).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('the MCP server "test" no longer offers the tool "fail"') },
    });
  });

  it("the taint policy reads the new traits: once echo may write, a call after the server's text is refused", async () => {
    const server = stdioTestServer(newLogFile(), 'test', ['--progress-tools']);
    const tools = await mcpTools(server, { pool });
    const changed = new Promise((resolve) => pool.connection(server).onToolsChanged(resolve));
    loopback.server
      .replyWithToolCalls([{ name: 'test__change_tools', arguments: '{}', id: 'call_a' }])
      .replyWithToolCalls([{ name: 'test__echo', arguments: '{"text":"hi"}', id: 'call_b' }])
      .replyWith({ content: 'done' });
    const deps = {
      model: loopback.model(),
      tools: new ToolRegistry(tools, { approvals: { taintPolicy: 'refuse' } }),
    };
    const result = await runPipeline(reactPipeline(), { task: 'Change, then echo' }, { deps });
    await changed;
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    const toolMessages = loopback.server.lastBody!.messages.filter((message) => message.role === 'tool');
    // change_tools ran (nothing untrusted had entered yet); its text tainted the run, and echo now writes.
    expect(toolMessages.map((message) => message.content)).toEqual([
      'changed',
      expect.stringMatching(/untrusted content entered the context .*test__echo has side effects/s),
    ]);
  }, 30_000);
});

describe('MCP client: a server that cannot start', () => {
  it('quotes the stderr lines that name the error, not the closing lines of a Node crash', async () => {
    const server = {
      name: 'broken',
      command: process.execPath,
      args: ['-e', "require('stageloop-no-such-module')"],
    };
    const failure = mcpTools(server, { pool, connectTimeoutMs: 20_000 });
    await expect(failure).rejects.toThrow(
      /Cannot start MCP server "broken" \(stdio: .*\): .*\(its stderr: .*Cannot find module 'stageloop-no-such-module'/s,
    );
    await expect(failure).rejects.not.toThrow(/Node\.js v\d/);
  }, 30_000);

  it('tellingLines picks the lines that say what went wrong, else the last ones', () => {
    const crash = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module 'x'",
      'Require stack:',
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '{',
      "  code: 'MODULE_NOT_FOUND',",
      '}',
      '',
      'Node.js v20.19.0',
    ].join('\n');
    expect(tellingLines(crash)).toEqual(["Error: Cannot find module 'x'"]);
    expect(tellingLines('starting\nlistening on 3000\nbye\n')).toEqual(['starting', 'listening on 3000', 'bye']);
    expect(tellingLines(`error: ${'x'.repeat(500)}`)[0]).toHaveLength(401);
  });
});
