// MCP server mode: one tool per pipeline (input { task }, the answer as text), progress notifications from the run's
// events, and the client's cancel cancelling the run. Served over stdio (`stageloop mcp`) and Streamable HTTP (/mcp).
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { packageVersion } from '../../common/version.js';
import { asStageloopError, errorFieldsOf } from './protocol-errors.js';
import { progressLineOf } from './progress-text.js';
import { answerTextOf, eventsOf, startProtocolRun } from './protocol-runs.js';
import { keepingTraceHeaders, type StartRunServices } from '../start-run.js';

const taskShape = { task: z.string().min(1).describe('what the agent should do, in plain words') };

/** A fresh MCP server with one tool per pipeline; each call is an ordinary recorded run. */
export function stageloopMcpServer(services: StartRunServices): McpServer {
  const server = new McpServer({ name: 'stageloop', version: packageVersion() }, { capabilities: { logging: {} } });
  for (const pipeline of services.pipelines) {
    const description = `Runs the stageloop "${pipeline.name}" agent on a task and returns its answer (stages: ${pipeline.iteration.join(', ')}). Every call is a recorded run.`;
    server.registerTool(
      pipeline.name,
      { title: `stageloop ${pipeline.name}`, description, inputSchema: taskShape },
      async ({ task }, extra): Promise<CallToolResult> => {
        try {
          // MCP carries the caller's W3C trace context in the request's `_meta` (stdio has no headers).
          const caller = extra._meta as { traceparent?: unknown; tracestate?: unknown } | undefined;
          const trace = {
            traceparent: typeof caller?.traceparent === 'string' ? caller.traceparent : undefined,
            tracestate: typeof caller?.tracestate === 'string' ? caller.tracestate : undefined,
          };
          const run = await keepingTraceHeaders(trace, () =>
            startProtocolRun(services, { pipeline: pipeline.name, task }),
          );
          // The client's notifications/cancelled aborts this signal: the run stops at its next checkpoint.
          const cancel = () => run.cancel('the MCP client cancelled the call');
          extra.signal.addEventListener('abort', cancel, { once: true });
          const progressToken = extra._meta?.progressToken;
          if (progressToken !== undefined) {
            let progress = 0;
            for await (const event of eventsOf(run.log, extra.signal)) {
              const line = progressLineOf(event);
              if (line === undefined) continue;
              progress += 1;
              await extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress, message: line },
                })
                .catch(() => undefined);
            }
          }
          const result = await run.result;
          extra.signal.removeEventListener('abort', cancel);
          const meta = { 'stageloop/runId': run.runId, 'stageloop/status': result.status };
          return {
            content: [{ type: 'text', text: answerTextOf(result) }],
            isError: result.status === 'failed' || result.status === 'cancelled',
            _meta: meta,
          };
        } catch (error) {
          const known = asStageloopError(error);
          const { code, httpStatus } = errorFieldsOf(known);
          return {
            content: [{ type: 'text', text: known.message }],
            isError: true,
            _meta: { 'stageloop/code': code, 'stageloop/httpStatus': httpStatus },
          };
        }
      },
    );
  }
  return server;
}

/** Sessions kept at once; the oldest is closed first (a client that never said goodbye). */
const maxSessions = 100;

/** /mcp over Streamable HTTP, one MCP session per client so a cancel reaches the call it names. */
export function mcpHttpHandler(services: StartRunServices): (context: Context) => Promise<Response> {
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
    await stageloopMcpServer(services).connect(transport);
    return transport.handleRequest(context.req.raw);
  };
}
