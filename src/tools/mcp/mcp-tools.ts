// mcpTools: the tools of an MCP server as stageloop Tools, which go into a ToolRegistry like any other.
import type { Client, jsonSchemaValidator, Tool as ListedTool } from '@modelcontextprotocol/client';
import { loadSdk, loadedSdk } from './sdk.js';
import { messageOf } from '../../common/error-message.js';
import type { Tool } from '../define-tool.js';
import { listAllTools, type McpConnection } from './connection.js';
import type { McpClientHandlers } from './client-requests.js';
import type { McpHandlersFor } from './run-requests.js';
import type { McpAuthorizer, McpCredentialStore } from './oauth-types.js';
import { callMcpTool, MCP_CALL_CEILING_MS, type McpCallSettings, type McpProgress } from './mcp-call.js';
import { prefixedToolName } from './names.js';
import { processMcpPool, type McpServerPool } from './pool.js';
import { argumentsSchema, modelSchema } from './schema.js';
import { describeTransport, MCP_SERVER_NAME_PATTERN, type McpServer, type McpToolOrigin } from './types.js';
import { StageloopError } from '../../common/stageloop-error.js';

/** What a filter sees of a listed tool. */
export interface McpToolInfo {
  server: string;
  /** The name on the server, before prefixing. */
  name: string;
  description?: string;
}

export interface McpToolsOptions {
  /** Keep only some tools: their names on the server (each must exist), or a predicate. */
  filter?: readonly string[] | ((tool: McpToolInfo) => boolean);
  /** How long a call may go without an answer or progress (the server's `timeout` wins); default 30,000 ms. */
  timeoutMs?: number;
  /** Who answers the servers' elicitation and sampling requests during a call (fixed, or made for each call like
   * runClientHandlers()); without them, declined. */
  handlers?: McpClientHandlers | McpHandlersFor;
  /** Each progress notification of a call. */
  onProgress?(progress: McpProgress): void;
  /** How long starting the server and the handshake may take. Default 30,000 ms. */
  connectTimeoutMs?: number;
  /** Where OAuth clients and tokens are kept (default a file per server); see McpConnectionOptions. */
  credentials?: McpCredentialStore;
  /** Who approves an OAuth authorization; absent, a server that needs one fails with how to log in. */
  authorizer?: McpAuthorizer;
  /** Where servers are kept; default the process pool (`closeMcpServers()` closes it). */
  pool?: McpServerPool;
  /** Checks arguments against the server's schema before a call; default ajv through the SDK. */
  validator?: jsonSchemaValidator;
}

const DEFAULT_QUIET_MS = 30_000;
const origins = new WeakMap<Tool, McpToolOrigin>();

/** Where an MCP tool came from; undefined for any other tool. */
export function mcpToolOrigin(tool: Tool): McpToolOrigin | undefined {
  return origins.get(tool);
}

/** Starts (or reuses) the server and lists its tools. Throws a `tool` StageloopError when it cannot, or on a name collision. */
export async function mcpTools(server: McpServer, options: McpToolsOptions = {}): Promise<Tool[]> {
  if (!MCP_SERVER_NAME_PATTERN.test(server.name)) {
    throw new StageloopError(
      'tool',
      `MCP server name ${JSON.stringify(server.name)} must match ${MCP_SERVER_NAME_PATTERN} (it prefixes the tool names)`,
    );
  }
  const connection = (options.pool ?? processMcpPool).connection(server, {
    ...(options.connectTimeoutMs && { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.credentials && { credentials: options.credentials }),
    ...(options.authorizer && { authorizer: options.authorizer }),
  });
  const listed = await listTools(await connection.client(), connection);
  const kept = listed.filter(keeper(server.name, listed, options.filter));
  const validator = options.validator ?? new (await loadSdk()).AjvJsonSchemaValidator();
  const seen = new Map<string, string>();
  return kept.map((entry) => {
    const name = prefixedToolName(server.name, entry.name);
    const earlier = seen.get(name);
    if (earlier !== undefined)
      throw new StageloopError(
        'tool',
        `MCP server "${server.name}": tools "${earlier}" and "${entry.name}" both become "${name}"; keep one with the filter option`,
      );
    seen.set(name, entry.name);
    const settings: McpCallSettings = {
      quietMs: server.timeout !== undefined ? server.timeout * 1000 : (options.timeoutMs ?? DEFAULT_QUIET_MS),
      ...(options.handlers && { handlers: options.handlers }),
      ...(options.onProgress && { onProgress: options.onProgress }),
    };
    return mcpTool(connection, entry, name, validator, settings);
  });
}

/** The tools of several servers, started in parallel; two tools given one name is an error naming both servers. */
export async function loadMcpTools(servers: readonly McpServer[], options: McpToolsOptions = {}): Promise<Tool[]> {
  const lists = await Promise.all(servers.map((server) => mcpTools(server, options)));
  const byName = new Map<string, McpToolOrigin>();
  for (const tool of lists.flat()) {
    const origin = origins.get(tool)!;
    const earlier = byName.get(tool.name);
    if (earlier)
      throw new StageloopError(
        'tool',
        `Tool name "${tool.name}" comes from MCP servers "${earlier.server}" and "${origin.server}"; rename one server`,
      );
    byName.set(tool.name, origin);
  }
  return lists.flat();
}

async function listTools(client: Client, connection: McpConnection): Promise<ListedTool[]> {
  try {
    connection.listedTools = await listAllTools(client);
    return [...connection.listedTools];
  } catch (error) {
    throw new StageloopError(
      'tool',
      `MCP server "${connection.server.name}" could not list its tools: ${connection.scrub(messageOf(error))}`,
      { cause: error },
    );
  }
}

function keeper(
  serverName: string,
  listed: readonly ListedTool[],
  filter: McpToolsOptions['filter'],
): (tool: ListedTool) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function')
    return (tool) =>
      filter({ server: serverName, name: tool.name, ...(tool.description ? { description: tool.description } : {}) });
  const names = new Set(listed.map((tool) => tool.name));
  const missing = filter.filter((name) => !names.has(name));
  if (missing.length > 0) {
    throw new StageloopError(
      'tool',
      `MCP server "${serverName}" has no tool named ${missing.map((name) => JSON.stringify(name)).join(', ')} (its tools: ${[...names].join(', ') || 'none'})`,
    );
  }
  const wanted = new Set(filter);
  return (tool) => wanted.has(tool.name);
}

function mcpTool(
  connection: McpConnection,
  listed: ListedTool,
  name: string,
  validator: jsonSchemaValidator,
  settings: McpCallSettings,
): Tool {
  const server = connection.server.name;
  const description =
    (listed.description ?? listed.title ?? '').trim() || `The tool "${listed.name}" of the MCP server "${server}".`;
  const schema = modelSchema(listed.inputSchema);
  // Not strict: servers write schemas for themselves, and strict mode rejects many of their keywords.
  const definition = deepFreeze({ name, description, parameters: schema, strict: false });
  const tool: Tool = {
    name,
    description,
    parameters: argumentsSchema(schema, validator),
    definition,
    // A server's own word that a tool only reads is taken; otherwise a call may change something (MCP's default too).
    // Read from the latest listing at each look: after tools/list_changed the taint and approval policy see the new word.
    get effects() {
      const current = connection.listedTools?.find((each) => each.name === listed.name) ?? listed;
      return current.annotations?.readOnlyHint === true ? 'read' : 'write';
    },
    taints: true,
    // The quiet timeout (reset by progress) is the SDK's; the executor only bounds a call that reports forever.
    timeoutMs: MCP_CALL_CEILING_MS,
    execute: (args, context) => callMcpTool(connection, listed, args, context, settings, name),
  };
  Object.freeze(tool);
  origins.set(tool, { server, tool: listed.name, transport: describeTransport(connection.server) });
  return tool;
}

function deepFreeze<Value>(value: Value): Value {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
