// The servers of a process: each started once however many times its tools are asked for, all closed at the end.
import { McpConnection, type McpConnectionOptions } from './connection.js';
import type { McpServer } from './types.js';
import { StageloopError } from '../../common/stageloop-error.js';

export class McpServerPool {
  readonly #connections = new Map<string, { key: string; connection: McpConnection }>();
  #exitHook: (() => void) | undefined;

  /** The connection for this server; the same name with another command or URL is an error, not a second server. */
  connection(server: McpServer, options: McpConnectionOptions = {}): McpConnection {
    const key = JSON.stringify(server);
    const existing = this.#connections.get(server.name);
    if (existing) {
      if (existing.key !== key)
        throw new StageloopError(
          'tool',
          `Two different MCP servers are named "${server.name}": server names must be unique`,
        );
      return existing.connection;
    }
    const connection = new McpConnection(server, options);
    this.#connections.set(server.name, { key, connection });
    this.#watchExit();
    return connection;
  }

  get size(): number {
    return this.#connections.size;
  }

  /** Closes every server (stdio children exit, HTTP sessions end) and forgets them. */
  async closeAll(): Promise<void> {
    const connections = [...this.#connections.values()].map((entry) => entry.connection);
    this.#connections.clear();
    if (this.#exitHook) process.off('exit', this.#exitHook);
    this.#exitHook = undefined;
    await Promise.all(connections.map((connection) => connection.close()));
  }

  /** On exit nothing can be awaited: children still running get a signal so none outlives us. */
  #watchExit(): void {
    if (this.#exitHook) return;
    this.#exitHook = () => {
      for (const entry of this.#connections.values()) entry.connection.kill();
    };
    process.once('exit', this.#exitHook);
  }
}

/** The pool `mcpTools` uses unless given another: one per process. */
export const processMcpPool = new McpServerPool();

/** Closes every server started through the process pool; call it before exiting (the CLI does). */
export function closeMcpServers(): Promise<void> {
  return processMcpPool.closeAll();
}
