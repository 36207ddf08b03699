// What an MCP server is to stageloop: a name (the tool-name prefix) and how to reach it (a command or a URL).
import { redactSecrets } from '../../common/redact.js';
import type { McpRoot } from './client-requests.js';
import type { McpOAuthSettings } from './oauth.js';
import type { McpSamplingPolicy } from './sampling-gate.js';

/** What every server may be given besides how to reach it. */
export interface McpServerSettings {
  /** Seconds a call may go without an answer or a progress notification; default 30. */
  timeout?: number;
  /** The folders the server may work in, announced through `roots/list`. */
  roots?: readonly McpRoot[];
  /** Tools of this server that need no approval (the config's `approveTools`, Cline's `autoApprove`). */
  approveTools?: readonly string[];
  /** Whether its sampling requests reach the run's model at once (`allow`, default), after a person's yes, or never. */
  sampling?: McpSamplingPolicy;
}

/** A server started as a child process speaking MCP over stdin/stdout. */
export interface McpStdioServer extends McpServerSettings {
  command: string;
  args?: readonly string[];
  /** Variables for the server, added to the SDK's safe subset of ours (PATH, HOME...): give every secret it needs here. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

/** A server reached over Streamable HTTP; an old server that only speaks SSE is tried next. */
export interface McpHttpServer extends McpServerSettings {
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** OAuth 2.1 for a protected server; without it a 401 still starts discovery and dynamic registration. */
  oauth?: McpOAuthSettings;
}

export type McpServerSpec = McpStdioServer | McpHttpServer;

/** `name` prefixes the server's tool names (`files__read_file`): letters, digits, _ and -, at most 32. */
export type McpServer = McpServerSpec & { name: string };

export const MCP_SERVER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;

export function isHttpServer(server: McpServerSpec): server is McpHttpServer {
  return 'url' in server && typeof server.url === 'string';
}

/** Where a tool came from, for `stageloop tools` and error messages. */
export interface McpToolOrigin {
  server: string;
  /** The tool's own name on the server (before prefixing). */
  tool: string;
  /** `stdio: command args` or `http: url` (never headers or env: they may hold secrets). */
  transport: string;
}

export function describeTransport(server: McpServerSpec): string {
  if (isHttpServer(server)) return `http: ${withoutCredentials(server.url)}`;
  return `stdio: ${redactSecrets([server.command, ...(server.args ?? [])].join(' '))}`;
}

/** A URL without user:password and query string, which may carry tokens. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return url.replace(/\?.*$/, '');
  }
}
