// MCP server mode, served over stdio (`stageloop mcp`) and Streamable HTTP (/mcp): one tool per pipeline (called
// plainly or as a task that is the durable run), recorded runs and session facts as resources, one prompt per pipeline
// and per configured agent with completions, logging, and on HTTP resumable SSE streams (an event store per session).
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { packageVersion } from '../../common/version.js';
import type { RunStore } from '../../store/types.js';
import type { StartRunServices } from '../start-run.js';
import { SessionEventStore } from './mcp-event-store.js';
import { registerPipelinePrompts } from './mcp-prompts.js';
import { registerPipelineTools } from './mcp-pipeline-tools.js';
import { registerRunResources } from './mcp-resources.js';
import { registerSessionFacts, type SessionFactServices } from './mcp-session-facts.js';
import { RunTaskStore, taskPollInterval, type RunRecoverer } from './mcp-run-tasks.js';

export { taskShape } from './mcp-pipeline-tools.js';

/** What the MCP server serves from: the run door, the store runs are recorded in, and how to continue a dead run. */
export interface McpServices extends StartRunServices, SessionFactServices {
  store: RunStore;
  /** Continues a run whose process died, when a client asks for its task (absent: such a task stays `working`). */
  continueDeadRun?: RunRecoverer;
  /** The state slots a run resource carries. */
  shownSlots?: readonly string[];
}

/** A fresh MCP server over the services; each tool call is an ordinary recorded run. */
export function stageloopMcpServer(services: McpServices): McpServer {
  const tasks = new RunTaskStore(services);
  const server = new McpServer(
    { name: 'stageloop', version: packageVersion() },
    {
      capabilities: {
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: tasks,
      defaultTaskPollInterval: taskPollInterval,
    },
  );
  registerPipelineTools(server, services, tasks);
  registerRunResources(server, services);
  registerSessionFacts(server, services);
  registerPipelinePrompts(server, services.pipelines, services.store, services.agents);
  return server;
}

/** Sessions kept at once; the oldest is closed first (a client that never said goodbye). */
const maxSessions = 100;
/** How long a client waits before reconnecting a dropped stream (ms), sent as SSE `retry`. */
const reconnectAfterMs = 1_000;

/**
 * /mcp over Streamable HTTP, one MCP session per client so a cancel reaches the call it names; each session keeps its
 * streams' events so a dropped stream resumes with Last-Event-ID. `serverOf` builds each session's server.
 */
export function mcpHttpHandler(
  services: McpServices,
  serverOf: (services: McpServices) => McpServer = stageloopMcpServer,
): (context: Context) => Promise<Response> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async function mcpOverHttp(context) {
    const sessionId = context.req.header('mcp-session-id');
    const known = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (known !== undefined) return known.handleRequest(context.req.raw);
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
    await serverOf(services).connect(transport);
    return transport.handleRequest(context.req.raw);
  };
}
