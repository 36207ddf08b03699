// The task methods on an MCP server of either era, answered from the run store (RunTasks). 2025-11-25: tasks/get,
// tasks/result (waits for the run), tasks/list, tasks/cancel. 2026-07-28, the tasks extension: tasks/get (the result
// inlined), tasks/cancel (an acknowledgement), tasks/update (no run asks its client for input: an error saying so).
import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { asStageloopError } from './protocol-errors.js';
import type { RunTasks } from './mcp-run-tasks.js';

/** The era a server instance serves: the v2 entries build one instance per era (serveStdio, createMcpHandler). */
export type McpEra = 'legacy' | 'modern';

const taskParams = z.looseObject({ taskId: z.string().min(1) });
const listParams = z.looseObject({ cursor: z.string().optional() });

export function registerTaskMethods(server: McpServer, tasks: RunTasks, era: McpEra): void {
  const low = server.server;
  if (era === 'legacy') {
    low.setRequestHandler('tasks/get', { params: taskParams }, ({ taskId }) => answering(() => tasks.task(taskId)));
    low.setRequestHandler('tasks/result', { params: taskParams }, ({ taskId }, ctx) =>
      answering(async () => {
        const result = await tasks.result(taskId, ctx.mcpReq.signal);
        return { ...result, _meta: { ...result._meta, 'io.modelcontextprotocol/related-task': { taskId } } };
      }),
    );
    low.setRequestHandler('tasks/list', { params: listParams }, ({ cursor }) => answering(() => tasks.list(cursor)));
    low.setRequestHandler('tasks/cancel', { params: taskParams }, ({ taskId }) =>
      answering(() => tasks.cancel(taskId)),
    );
    return;
  }
  low.setRequestHandler('tasks/get', { params: taskParams }, ({ taskId }) => answering(() => tasks.detailed(taskId)));
  // Cancellation is cooperative and eventually consistent: the ack comes at once, the run stops at its checkpoint.
  low.setRequestHandler('tasks/cancel', { params: taskParams }, ({ taskId }) =>
    answering(async () => {
      void tasks.cancel(taskId).catch(() => undefined);
      await tasks.detailed(taskId);
      return {};
    }),
  );
  low.setRequestHandler('tasks/update', { params: taskParams }, ({ taskId }) =>
    answering(async () => {
      await tasks.detailed(taskId);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `task ${taskId} asks for no input: a run waiting for a person is decided with "stageloop approve ${taskId}" or POST /v1/runs/${taskId}/decisions`,
      );
    }),
  );
}

/** A stageloop error as a JSON-RPC one: an unknown task or a refused cancel is the client's mistake (-32602). */
async function answering<Result>(answer: () => Promise<Result>): Promise<Result> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const known = asStageloopError(error);
    const clients = known.code === 'not_found' || known.code === 'conflict';
    throw new ProtocolError(clients ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, known.message);
  }
}
