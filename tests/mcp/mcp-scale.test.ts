// MCP at scale: a server with 5,000 tools (each its own schema) lists and registers whole, every name and schema as
// the server gave it, and the tools still check their arguments against their own schemas (compiled at first use).
// Its time is measured in bench/mcp.bench.ts, not asserted here.
import { afterAll, describe, expect, it } from 'vitest';
import { McpServerPool, mcpTools } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { newLogFile, readLog, stdioTestServer } from '../support/mcp-servers.js';

const pool = new McpServerPool();
afterAll(() => pool.closeAll());

describe('an MCP server with 5,000 tools', () => {
  it('lists and registers all of them, each validating against its own schema', async () => {
    const log = newLogFile();
    const tools = await mcpTools(stdioTestServer(log, 'many', ['--many', '5000']), { pool });
    const registry = new ToolRegistry(tools);
    expect(registry.names).toHaveLength(5_006);
    expect(new Set(registry.names).size).toBe(5_006);
    const last = registry.definitions().find((definition) => definition.name === 'many__tool_05000')!;
    expect(last.parameters).toEqual({
      type: 'object',
      properties: {
        text_5000: { type: 'string', minLength: 1 },
        count: { type: 'integer', minimum: 0, maximum: 5000 },
      },
      required: ['text_5000'],
      additionalProperties: false,
    });
    const call = (name: string, args: unknown) => registry.execute({ id: 'c1', name, arguments: JSON.stringify(args) });
    expect(await call('many__tool_05000', { text_5000: 'hi', count: 7 })).toMatchObject({
      ok: true,
      content: 'tool_05000: {"text_5000":"hi","count":7}',
    });
    // Each tool's own schema: tool 12's property, and its own maximum, refused locally and never sent.
    const wrongName = await call('many__tool_00012', { text_5000: 'hi' });
    expect(wrongName).toMatchObject({ ok: false, error: { kind: 'invalid_arguments' } });
    expect(await call('many__tool_00012', { text_12: 'hi', count: 13 })).toMatchObject({
      ok: false,
      error: { kind: 'invalid_arguments', message: expect.stringMatching(/maximum|<= 12/) },
    });
    expect(await call('many__tool_00012', { text_12: 'hi', count: 12 })).toMatchObject({ ok: true });
    expect(
      readLog(log)
        .filter((entry) => entry.event === 'call')
        .map((entry) => entry.tool),
    ).toEqual(['tool_05000', 'tool_00012']);
  }, 120_000);
});
