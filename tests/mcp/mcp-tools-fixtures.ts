// The mcp-tools tests' shared fixtures: one server pool per test file, closed after each test, and a call builder.
import { afterEach } from 'vitest';
import { McpServerPool } from '../../src/tools/mcp/index.js';
import type { ToolCall } from '../../src/model/types.js';
import type { RunningServer } from '../support/mcp-servers.js';

/** A pool and a list of started servers, both closed after each test of the file that calls this. */
export function useMcpPool(): { pool: McpServerPool; running: RunningServer[] } {
  const pool = new McpServerPool();
  const running: RunningServer[] = [];
  afterEach(async () => {
    await pool.closeAll();
    await Promise.all(running.splice(0).map((server) => server.close()));
  });
  return { pool, running };
}

export const call = (name: string, args: unknown): ToolCall => ({
  id: 'call_1',
  name,
  arguments: JSON.stringify(args),
});
