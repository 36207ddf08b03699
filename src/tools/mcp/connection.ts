// One client per MCP server: connected on first use, reconnected after the server went away, closed once.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MissingPackageError } from '../../common/optional-package.js';
import { loadSdk } from './sdk.js';
import { messageOf } from '../../common/error-message.js';
import { redactSecrets, withoutSecret } from '../../common/redact.js';
import { describeTransport, isHttpServer, type McpHttpServer, type McpServer, type McpStdioServer } from './types.js';
import { StageloopError } from '../../common/stageloop-error.js';

const CLIENT_INFO = { name: 'stageloop', version: '0.1.0' };
const STDERR_TAIL_CHARS = 2_000;
/** Transport errors after which an HTTP connection cannot deliver the answers still owed. */
const STREAM_LOST = /SSE stream disconnected|Maximum reconnection attempts|Failed to reconnect|SSE error/i;

export interface McpConnectionOptions {
  /** How long starting a server and the MCP handshake may take. Default 30,000 ms. */
  connectTimeoutMs?: number;
}

export class McpConnection {
  readonly server: McpServer;
  readonly #options: McpConnectionOptions;
  #client: Promise<Client> | undefined;
  #stdio: StdioClientTransport | undefined;
  #stderrTail = '';
  #closed = false;

  constructor(server: McpServer, options: McpConnectionOptions = {}) {
    this.server = server;
    this.#options = options;
  }

  /** The connected client; the first call starts the server, a call after a crash or disconnect starts it again. */
  client(): Promise<Client> {
    if (this.#closed) return Promise.reject(new StageloopError('tool', `MCP server "${this.server.name}" was closed`));
    if (this.#client) return this.#client;
    const connecting = this.#connect();
    this.#client = connecting;
    // A failed start is not cached: the next call tries again.
    connecting.catch(() => {
      if (this.#client === connecting) this.#client = undefined;
    });
    return connecting;
  }

  /** The server's process id while a stdio server runs. */
  get pid(): number | undefined {
    return this.#stdio?.pid ?? undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#client;
    this.#client = undefined;
    if (!pending) return;
    const client = await pending.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  /** Synchronous, for process exit: the child gets SIGTERM, nothing is awaited. */
  kill(): void {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid);
    } catch {
      // Already gone.
    }
  }

  /** The last lines the server wrote to stderr, redacted: why it may have failed. */
  get stderrTail(): string {
    return this.scrub(this.#stderrTail.trim());
  }

  /** Text without the values of this server's env and headers (they hold its secrets) and without secret-looking values. */
  scrub(text: string): string {
    const spec = this.server;
    const values = Object.values(isHttpServer(spec) ? (spec.headers ?? {}) : (spec.env ?? {}));
    let result = text;
    for (const value of values) result = withoutSecret(result, value);
    return redactSecrets(result);
  }

  async #connect(): Promise<Client> {
    const server = this.server;
    try {
      const client = isHttpServer(server) ? await this.#connectHttp(server) : await this.#connectStdio(server);
      // Set by client() before this resolves: a later reconnect's promise must not be cleared by this client's end.
      const mine = this.#client;
      client.onclose = () => {
        // The next call reconnects; calls in flight were rejected by the SDK with ConnectionClosed.
        if (this.#client === mine) this.#client = undefined;
      };
      if (isHttpServer(server)) {
        // A dropped HTTP stream leaves its requests waiting forever (no resumption without a server event store):
        // closing rejects them at once, and the next call reconnects.
        client.onerror = (error) => {
          if (STREAM_LOST.test(error.message)) void client.close().catch(() => undefined);
        };
      }
      return client;
    } catch (error) {
      if (error instanceof MissingPackageError) throw error;
      const tail = this.stderrTail;
      const detail = tail ? ` (its stderr: ${tail.split('\n').slice(-3).join(' | ')})` : '';
      throw new StageloopError(
        'tool',
        `Cannot ${isHttpServer(server) ? 'reach' : 'start'} MCP server "${server.name}" (${describeTransport(server)}): ${this.scrub(messageOf(error))}${detail}`,
        { cause: error },
      );
    }
  }

  async #connectStdio(server: McpStdioServer): Promise<Client> {
    const { Client, StdioClientTransport } = await loadSdk();
    const transport = new StdioClientTransport({
      command: server.command,
      ...(server.args ? { args: [...server.args] } : {}),
      ...(server.env ? { env: { ...server.env } } : {}),
      ...(server.cwd ? { cwd: server.cwd } : {}),
      stderr: 'pipe',
    });
    this.#stderrTail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    this.#stdio = transport;
    const client = new Client(CLIENT_INFO);
    await client.connect(transport, { timeout: this.#timeout() });
    return client;
  }

  async #connectHttp(server: McpHttpServer): Promise<Client> {
    const { Client, SSEClientTransport, StreamableHTTPClientTransport, StreamableHTTPError } = await loadSdk();
    const url = new URL(server.url);
    const requestInit: RequestInit = { headers: { ...server.headers } };
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit }), { timeout: this.#timeout() });
      return client;
    } catch (error) {
      // The spec's backwards compatibility: a 4xx on the POST means an old server that speaks HTTP+SSE.
      if (!(error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500))
        throw error;
      await client.close().catch(() => undefined);
    }
    const legacy = new Client(CLIENT_INFO);
    await legacy.connect(new SSEClientTransport(url, { requestInit }), { timeout: this.#timeout() });
    return legacy;
  }

  #timeout(): number {
    return this.#options.connectTimeoutMs ?? 30_000;
  }
}
