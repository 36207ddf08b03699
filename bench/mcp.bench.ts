// MCP at scale: one stdio server (tests/support/mcp-test-server.ts --many N) with N tools, each with its own schema.
// Timed after the server is up (the pool keeps the connection): listing every page, making the tools, registering them.
import { performance } from 'node:perf_hooks';
import { closeMcpServers, mcpTools } from '../src/tools/mcp/index.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { newLogFile, stdioTestServer } from '../tests/support/mcp-servers.js';
import { median } from './measure.js';

export async function run(): Promise<void> {
  try {
    for (const count of [500, 2_000, 5_000]) {
      const server = stdioTestServer(newLogFile(), `many${count}`, ['--many', String(count)]);
      await mcpTools(server);
      const times: number[] = [];
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const registry = new ToolRegistry(await mcpTools(server));
        times.push(performance.now() - started);
        if (registry.definitions().length !== count + 6)
          throw new Error(`expected ${count + 6} tools, got ${registry.definitions().length}`);
      }
      const ms = median(times);
      console.log(
        `MCP: list and register ${count} tools: median ${ms.toFixed(0)} ms (${times.map((time) => time.toFixed(0)).join(', ')}), ${((1000 * ms) / count).toFixed(0)} µs a tool`,
      );
    }
  } finally {
    await closeMcpServers();
  }
}
