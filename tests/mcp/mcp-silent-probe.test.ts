// A stdio server that ignores `server/discover` (a hand-written older server) is an older one after a short probe: it
// gets `initialize` in a few seconds, not after the connect timeout (30 s, longer than this test waits).
import { afterEach, describe, expect, it } from 'vitest';
import { McpServerPool, mcpTools } from '../../src/tools/mcp/index.js';
import { repositoryRoot } from '../support/mcp-servers.js';

const pool = new McpServerPool();
afterEach(() => pool.closeAll());

describe('MCP version probe on stdio', () => {
  it('falls back to initialize when the server says nothing to server/discover', { timeout: 25_000 }, async () => {
    const server = {
      name: 'silent',
      command: process.execPath,
      args: [`${repositoryRoot}/tests/support/mcp-silent-server.mjs`],
      timeout: 60,
    };
    const tools = await mcpTools(server, { pool });
    expect(tools.map((tool) => tool.name)).toEqual(['silent__echo']);
    const client = await pool.connection(server).client();
    expect(client.getProtocolEra()).toBe('legacy');
  });
});
