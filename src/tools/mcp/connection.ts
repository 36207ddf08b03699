// One client per MCP server: connected on first use, reconnected after the server went away, closed once.
import type { Client, PriorDiscovery, Tool as ListedTool } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MissingPackageError } from '../../common/optional-package.js';
import { loadAuthSdk, loadSdk, type McpSdk } from './sdk.js';
import { CLIENT_CAPABILITIES, McpCallers } from './client-requests.js';
import { TASK_CAPABILITIES, taskingClient } from './client-tasks.js';
import { answerServerRequests } from './server-requests.js';
import { authorizingFetch } from './oauth-fetch.js';
import { oauthProvider } from './oauth-grants.js';
import type { McpAuthorizer, McpCredentialStore } from './oauth-types.js';
import { tellingLines } from './stderr-lines.js';
import { messageOf } from '../../common/error-message.js';
import { redactSecrets, withoutSecret } from '../../common/redact.js';
import { describeTransport, isHttpServer, type McpHttpServer, type McpServer, type McpStdioServer } from './types.js';
import { StageloopError } from '../../common/stageloop-error.js';

/** A stdio server silent to `server/discover` is an older one: it gets `initialize` after this, not the call timeout. */
const STDIO_PROBE_MS = 5_000;
const CLIENT_INFO = { name: 'stageloop', version: '0.1.0' };
const STDERR_TAIL_CHARS = 2_000;
/** Transport errors after which an HTTP connection cannot deliver the answers still owed. */
const STREAM_LOST = /SSE stream disconnected|Maximum reconnection attempts|Failed to reconnect|SSE error/i;

export interface McpConnectionOptions {
  /** How long starting a server and the MCP handshake may take. Default 30,000 ms. */
  connectTimeoutMs?: number;
  /** Where OAuth clients and tokens are kept; default a file per server in `$STAGELOOP_HOME/mcp-oauth`. */
  credentials?: McpCredentialStore;
  /** Who approves an OAuth authorization (`stageloop mcp login`); absent, a server needing one fails with how to log in. */
  authorizer?: McpAuthorizer;
}

export class McpConnection {
  readonly server: McpServer;
  readonly #options: McpConnectionOptions;
  #client: Promise<Client> | undefined;
  #stdio: StdioClientTransport | undefined;
  #stderrTail = '';
  #closed = false;
  /** The handlers of the calls in flight: a server's elicitation or sampling request goes to them. */
  readonly callers = new McpCallers();
  /** The server's tools as last listed; a `tools/list_changed` notification lists them again. */
  listedTools: readonly ListedTool[] | undefined;
  /** Set while the tools are listed again after a change: a call's result waits for it, so the run sees the new list. */
  relisting: Promise<void> | undefined;
  readonly #toolsChanged = new Set<(tools: readonly ListedTool[]) => void>();
  /** The protocol era the server spoke last time: a reconnect skips the SDK's `server/discover` probe (a stdio probe
   * starts the server once more, in a process of its own). */
  #era: PriorDiscovery | undefined;

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

  /** Called with the new list each time the server says its tools changed; returns the unsubscribe. */
  onToolsChanged(listener: (tools: readonly ListedTool[]) => void): () => void {
    this.#toolsChanged.add(listener);
    return () => this.#toolsChanged.delete(listener);
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
      if (error instanceof StageloopError) throw error;
      const telling = tellingLines(this.stderrTail);
      const detail = telling.length > 0 ? ` (its stderr: ${telling.join(' | ')})` : '';
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
    const client = this.#newClient(await loadSdk(), STDIO_PROBE_MS);
    await this.#handshake(client, transport);
    return client;
  }

  async #handshake(client: Client, transport: Parameters<Client['connect']>[0]): Promise<void> {
    await client.connect(transport, { timeout: this.#timeout(), ...(this.#era && { prior: this.#era }) });
    const discover = client.getDiscoverResult();
    this.#era = client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  }

  /** A client that declares what stageloop answers and re-lists the tools when the server says they changed. */
  #newClient(sdk: McpSdk, probeMs?: number): Client {
    const TaskingClient = taskingClient(sdk);
    const client = new TaskingClient(CLIENT_INFO, {
      capabilities: { ...CLIENT_CAPABILITIES, ...TASK_CAPABILITIES },
      // MCP 2026-07-28 (`server/discover`) with a server that speaks it, else the 2025-11-25 handshake.
      versionNegotiation: { mode: 'auto', ...(probeMs !== undefined && { probe: { timeoutMs: probeMs } }) },
    });
    // Not the SDK's listChanged option: it lists 300 ms later, after the result of the call that changed the tools
    // reached the run. The handler runs before that result is handed back, and the call waits for the new list.
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      const relisting = listAllTools(client).then(
        (tools) => {
          this.listedTools = tools;
          for (const listener of this.#toolsChanged) listener(tools);
        },
        () => undefined,
      );
      this.relisting = relisting;
      void relisting.finally(() => {
        if (this.relisting === relisting) this.relisting = undefined;
      });
    });
    answerServerRequests(client, sdk, this.server.name, this.callers, () => this.server.roots ?? []);
    return client;
  }

  async #connectHttp(server: McpHttpServer & { name: string }): Promise<Client> {
    const sdk = await loadSdk();
    const url = new URL(server.url);
    const requestInit: RequestInit = { headers: { ...server.headers } };
    // A configured Authorization header is the server's credential; otherwise OAuth answers a 401.
    const headerAuth = Object.keys(server.headers ?? {}).some((key) => key.toLowerCase() === 'authorization');
    const authSdk = headerAuth ? undefined : await loadAuthSdk();
    const fetch =
      authSdk &&
      authorizingFetch(
        authSdk,
        oauthProvider(authSdk, server, this.#options),
        url,
        server.oauth?.skipIssuerCheck === true,
      );
    const client = this.#newClient(sdk);
    try {
      const transport = new sdk.StreamableHTTPClientTransport(url, { requestInit, ...(fetch && { fetch }) });
      await this.#handshake(client, transport);
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      const status = httpStatus(sdk, error);
      if (status === 401 || status === 403) throw this.#unauthorized(server, status, headerAuth, error);
      // The spec's backwards compatibility: another 4xx on the POST means an old server that speaks HTTP+SSE.
      if (status === undefined || status < 400 || status >= 500) throw error;
    }
    const legacy = this.#newClient(sdk);
    await this.#handshake(legacy, new sdk.SSEClientTransport(url, { requestInit }));
    return legacy;
  }

  #unauthorized(
    server: McpHttpServer & { name: string },
    status: number,
    headerAuth: boolean,
    cause: unknown,
  ): StageloopError {
    const fix = headerAuth
      ? 'the configured Authorization header was refused: check the token'
      : `run \`stageloop mcp login ${server.name}\`, or set its "oauth" (clientId, scopes) in the config`;
    return new StageloopError(
      'tool',
      `MCP server "${server.name}" (${describeTransport(server)}) needs authorization (${status}): ${fix}`,
      { cause },
    );
  }

  #timeout(): number {
    return this.#options.connectTimeoutMs ?? 30_000;
  }
}

/** The HTTP status of a failed connect, when the server answered one. */
function httpStatus(sdk: McpSdk, error: unknown): number | undefined {
  if (!(error instanceof sdk.SdkError)) return undefined;
  const status = (error.data as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number') return status;
  if (error.code === sdk.SdkErrorCode.ClientHttpAuthentication) return 401;
  if (error.code === sdk.SdkErrorCode.ClientHttpForbidden) return 403;
  return undefined;
}

const MAX_LIST_PAGES = 100;

/** Every tool the server lists, page after page (at most 100 pages). */
export async function listAllTools(client: Client): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
