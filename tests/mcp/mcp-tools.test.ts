// mcpTools against real MCP servers (child processes): listing, local validation, results, errors, crashes, pools.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpTools, mcpToolOrigin, loadMcpTools } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { repositoryRoot, newLogFile, readLog, stdioTestServer, waitForLog } from '../support/mcp-servers.js';
import { call, useMcpPool } from './mcp-tools-fixtures.js';

const { pool } = useMcpPool();

async function testRegistry(options: { timeoutMs?: number } = {}) {
  const log = newLogFile();
  const server = stdioTestServer(log);
  const tools = await mcpTools(server, { pool, ...options });
  return { log, tools, registry: new ToolRegistry(tools), connection: pool.connection(server) };
}

describe('mcpTools over stdio (the SDK test server)', () => {
  it('lists the tools prefixed by the server name, with the server schema for the model and the origin kept', async () => {
    const { tools, registry } = await testRegistry();
    expect(registry.names).toEqual([
      'test__echo',
      'test__slow',
      'test__fail',
      'test__error_result',
      'test__picture',
      'test__whoami',
    ]);
    expect(registry.definitions()[0]).toEqual({
      name: 'test__echo',
      description: 'Returns its text.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1 } },
        required: ['text'],
        additionalProperties: false,
      },
      strict: false,
    });
    expect(mcpToolOrigin(tools[0]!)).toMatchObject({
      server: 'test',
      tool: 'echo',
      transport: expect.stringMatching(/^stdio: .*node/),
    });
    expect(await registry.execute(call('test__echo', { text: 'hello' }))).toMatchObject({ ok: true, content: 'hello' });
  });

  it('arguments that violate the server schema are rejected locally and never sent', async () => {
    const { log, registry } = await testRegistry();
    const results = await registry.executeAll([
      call('test__echo', { text: '' }),
      call('test__slow', { ms: 'soon' }),
      call('test__echo', { text: 'a', extra: 1 }),
    ]);
    expect(results.map((result) => !result.ok && result.error.kind)).toEqual([
      'invalid_arguments',
      'invalid_arguments',
      'invalid_arguments',
    ]);
    expect(results[0]).toMatchObject({
      error: { message: expect.stringContaining('arguments/text must NOT have fewer than 1 characters') },
    });
    expect(results[1]).toMatchObject({ error: { message: expect.stringContaining('arguments/ms must be integer') } });
    await registry.execute(call('test__echo', { text: 'sent' }));
    expect(
      readLog(log)
        .filter((entry) => entry.event === 'call')
        .map((entry) => entry.arguments),
    ).toEqual([{ text: 'sent' }]);
  });

  it('an isError result and a JSON-RPC error are tool errors; an image is described, not dropped', async () => {
    const { registry } = await testRegistry();
    const [errorResult, failure, picture] = await registry.executeAll([
      call('test__error_result', {}),
      call('test__fail', {}),
      call('test__picture', {}),
    ]);
    expect(errorResult).toMatchObject({
      ok: false,
      error: {
        kind: 'failed',
        message: 'Tool "test__error_result" failed: the MCP server "test" reported an error: no such record: 42',
      },
    });
    expect(failure).toMatchObject({
      ok: false,
      error: {
        kind: 'failed',
        message: 'Tool "test__fail" failed: the MCP server "test" answered with error -32603: the disk is on fire',
      },
    });
    expect(picture).toMatchObject({ ok: true, content: 'a red dot\n[image content: image/png, 8 bytes, not shown]' });
  });

  it('our timeout stops the call and sends the server a cancellation', async () => {
    const { log, registry } = await testRegistry({ timeoutMs: 300 });
    const result = await registry.execute(call('test__slow', { ms: 20_000 }));
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(await waitForLog(log, (entry) => entry.event === 'cancelled')).toMatchObject({
      tool: 'slow',
      reason: expect.stringContaining('timed out'),
    });
  });

  it('a server killed mid-call gives a typed tool error at once, and the next call starts it again', async () => {
    const { log, registry, connection } = await testRegistry();
    const pending = registry.execute(call('test__slow', { ms: 20_000 }));
    const started = await waitForLog(log, (entry) => entry.event === 'call');
    process.kill(started.pid, 'SIGKILL');
    const result = await pending;
    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: 'failed',
        retryable: true,
        message: expect.stringContaining('the MCP server "test" closed the connection during the call'),
      },
    });
    expect(result.durationMs).toBeLessThan(10_000);
    expect(await registry.execute(call('test__echo', { text: 'back' }))).toMatchObject({ ok: true, content: 'back' });
    expect(connection.pid).not.toBe(started.pid);
  });

  it('a filter keeps some tools; a name the server lacks is an error naming its tools', async () => {
    const log = newLogFile();
    const byName = await mcpTools(stdioTestServer(log), { pool, filter: ['echo', 'slow'] });
    expect(byName.map((tool) => tool.name)).toEqual(['test__echo', 'test__slow']);
    const byPredicate = await mcpTools(stdioTestServer(log), { pool, filter: (tool) => tool.name.includes('error') });
    expect(byPredicate.map((tool) => tool.name)).toEqual(['test__error_result']);
    await expect(mcpTools(stdioTestServer(log), { pool, filter: ['ecko'] })).rejects.toThrow(
      'MCP server "test" has no tool named "ecko" (its tools: echo, slow, fail, error_result, picture, whoami)',
    );
  });

  it('a server is started once per pool however often its tools are asked for, and closed with the pool', async () => {
    const log = newLogFile();
    await Promise.all([mcpTools(stdioTestServer(log), { pool }), mcpTools(stdioTestServer(log), { pool })]);
    await mcpTools(stdioTestServer(log), { pool });
    const starts = readLog(log).filter((entry) => entry.event === 'started');
    // The session's process, and before it the SDK's version probe: a process of its own that is asked
    // `server/discover` and ended before the session starts (a server may exit on a request before `initialize`).
    expect(starts).toHaveLength(2);
    expect(isAlive(starts[0]!.pid)).toBe(false);
    await pool.closeAll();
    await expect.poll(() => isAlive(starts[1]!.pid)).toBe(false);
  });

  it('two tools given one name are an error at start, within a server and across servers', async () => {
    const log = newLogFile();
    await expect(
      mcpTools(stdioTestServer(log, 'test', ['--alias', 'echo.x', '--alias', 'echo_x']), { pool }),
    ).rejects.toThrow(
      'MCP server "test": tools "echo.x" and "echo_x" both become "test__echo_x"; keep one with the filter option',
    );
    const servers = [stdioTestServer(log, 'a', ['--alias', 'b__echo']), stdioTestServer(log, 'a__b')];
    await expect(loadMcpTools(servers, { pool, filter: (tool) => tool.name.endsWith('echo') })).rejects.toThrow(
      'Tool name "a__b__echo" comes from MCP servers "a" and "a__b"; rename one server',
    );
  });

  it('a process that exits without closing its servers still stops them (the process pool exit hook)', async () => {
    const log = newLogFile();
    const probe = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(repositoryRoot, 'tests/support/mcp-exit-probe.ts'), log],
      { cwd: repositoryRoot, encoding: 'utf8', timeout: 15_000 },
    );
    expect(probe.status, probe.stderr).toBe(0);
    const started = readLog(log).find((entry) => entry.event === 'started')!;
    await expect.poll(() => isAlive(started.pid), { timeout: 5_000 }).toBe(false);
  });

  it('a server that cannot start is one `tool` error naming it; the same name for two servers is refused', async () => {
    await expect(mcpTools({ name: 'missing', command: '/nonexistent/mcp-server' }, { pool })).rejects.toThrow(
      /^Cannot start MCP server "missing" \(stdio: \/nonexistent\/mcp-server\): .*ENOENT/,
    );
    await expect(mcpTools({ name: 'bad name!', command: 'x' }, { pool })).rejects.toThrow(
      expect.objectContaining({ code: 'tool' }),
    );
    await mcpTools(stdioTestServer(newLogFile(), 'same'), { pool });
    await expect(mcpTools({ name: 'same', command: 'other' }, { pool })).rejects.toThrow(
      'Two different MCP servers are named "same"',
    );
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
