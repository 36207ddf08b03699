// MCP server mode on the SDK's v2 packages, speaking 2026-07-28 (stateless requests, `server/discover`, the `_meta`
// envelope, tasks as the extension's shapes) and 2025-11-25 for older clients. Served over stdio (`stageloop mcp`,
// through serveStdio) and Streamable HTTP (/mcp): one tool per pipeline (called plainly or as a task that is the
// durable run), recorded runs and session facts as resources, one prompt per pipeline and per configured agent with
// completions, logging, and for 2025 sessions on HTTP resumable SSE streams (an event store per session).
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { packageVersion } from '../../common/version.js';
import type { RunStore } from '../../store/types.js';
import type { StartRunServices } from '../start-run.js';
import { SessionEventStore } from './mcp-event-store.js';
import { registerPipelinePrompts } from './mcp-prompts.js';
import { registerPipelineTools } from './mcp-pipeline-tools.js';
import { followRunUpdates, registerRunResources } from './mcp-resources.js';
import { registerSessionFacts, type SessionFactServices } from './mcp-session-facts.js';
import { RunTasks, tasksExtension, type RunRecoverer } from './mcp-run-tasks.js';
import { registerTaskMethods, type McpEra } from './mcp-task-methods.js';

export { taskShape } from './mcp-pipeline-tools.js';
export type { McpEra } from './mcp-task-methods.js';

/** What the MCP server serves from: the run door, the store runs are recorded in, and how to continue a dead run. */
export interface McpServices extends StartRunServices, SessionFactServices {
  store: RunStore;
  /** Continues a run whose process died, when a client asks for its task (absent: such a task stays `working`). */
  continueDeadRun?: RunRecoverer;
  /** The state slots a run resource carries. */
  shownSlots?: readonly string[];
}

/** Builds a server instance of one era over the services (the conformance test adds its fixtures through this). */
export type McpServerOf = (services: McpServices, era: McpEra) => McpServer;

/** One RunTasks per set of services: every instance (one per connection or request) sees the same continuations. */
const tasksOfServices = new WeakMap<McpServices, RunTasks>();

/** A fresh MCP server for one era over the services; each tool call is an ordinary recorded run. */
export function stageloopMcpServer(services: McpServices, era: McpEra = 'legacy'): McpServer {
  let tasks = tasksOfServices.get(services);
  if (tasks === undefined) tasksOfServices.set(services, (tasks = new RunTasks(services)));
  const server = new McpServer(
    { name: 'stageloop', version: packageVersion() },
    {
      capabilities: {
        logging: {},
        // 2025-11-25 names tasks in the core capabilities; 2026-07-28 as an extension (each codec drops the other).
        ...(era === 'legacy'
          ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
          : { extensions: { [tasksExtension]: {} } }),
      },
    },
  );
  registerPipelineTools(server, services, tasks, era);
  registerTaskMethods(server, tasks, era);
  registerRunResources(server, services, era);
  registerSessionFacts(server, services);
  registerPipelinePrompts(server, services.pipelines, services.store, services.agents);
  return server;
}

/** The v2 entries' factory: they call it per stdio connection or per 2026 HTTP request, naming the era to serve. */
export function stageloopMcpFactory(
  services: McpServices,
  serverOf: McpServerOf = stageloopMcpServer,
): McpServerFactory {
  return ({ era }) => serverOf(services, era);
}

/** Sessions kept at once; the oldest is closed first (a client that never said goodbye). */
const maxSessions = 100;
/** How long a client waits before reconnecting a dropped stream (ms), sent as SSE `retry`. */
const reconnectAfterMs = 1_000;

/**
 * /mcp over Streamable HTTP. A 2026-07-28 request (its `_meta` envelope says so) goes to the v2 HTTP entry with a server
 * per request; 2025 traffic keeps one MCP session per client, so a cancel reaches the call it names, and each session
 * keeps its streams' events so a dropped stream resumes with Last-Event-ID. `serverOf` builds each server.
 */
export function mcpHttpHandler(
  services: McpServices,
  serverOf: McpServerOf = stageloopMcpServer,
): (context: Context) => Promise<Response> {
  const modern = createMcpHandler(stageloopMcpFactory(services, serverOf), { legacy: 'reject' });
  followRunUpdates(services.host, (uri) => modern.notify.resourceUpdated(uri));
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async function mcpOverHttp(context) {
    const request = context.req.raw;
    if (!(await isLegacyRequest(request))) return modern.fetch(request);
    const sessionId = context.req.header('mcp-session-id');
    const known = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (known !== undefined) return known.handleRequest(request);
    if (sessionId !== undefined) {
      return context.json(
        {
          jsonrpc: '2.0',
          error: {
            code: -32001,
            message: `no MCP session ${sessionId} on this server (it ended or the server restarted): initialize again`,
          },
          id: null,
        },
        404,
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new SessionEventStore(),
      retryInterval: reconnectAfterMs,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        if (sessions.size > maxSessions) {
          const [oldest] = sessions.keys();
          void sessions.get(oldest!)?.close();
        }
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await serverOf(services, 'legacy').connect(transport);
    return transport.handleRequest(request);
  };
}
