// One MCP tool per pipeline (input { task }, the answer as text). It returns a task at once (the run goes on, durable)
// when the client can take one: on 2025-11-25 when the call carries `task` in its params, on 2026-07-28 when the
// request's capabilities name the tasks extension (the server decides; a run can take minutes). Otherwise the call waits
// for the run. Progress notifications come from the run's events, and the client's cancel cancels the run.
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { asStageloopError, errorFieldsOf } from './protocol-errors.js';
import { progressLineOf } from './progress-text.js';
import { eventsOf, startProtocolRun, type ProtocolRun } from './protocol-runs.js';
import type { RunStore } from '../../store/types.js';
import { keepingTraceHeaders, type StartRunServices } from '../start-run.js';
import { tasksExtension, toolResultOfRun, type RunTasks } from './mcp-run-tasks.js';
import type { McpEra } from './mcp-task-methods.js';
import { traceOfMeta } from './mcp-trace.js';

export const taskShape = { task: z.string().min(1).describe('what the agent should do, in plain words') };

type ToolCallHandler = (request: { params: { task?: unknown } }, ctx: ServerContext) => Promise<unknown>;

export function registerPipelineTools(
  server: McpServer,
  services: StartRunServices & { store: RunStore },
  tasks: RunTasks,
  era: McpEra,
): void {
  /** The 2025 calls that asked for a task (the tool's callback sees its context, not the request's params). */
  const askedForTask = new WeakSet<object>();
  for (const pipeline of services.pipelines) {
    const description = `Runs the stageloop "${pipeline.name}" agent on a task and returns its answer (stages: ${pipeline.iteration.join(', ')}). Every call is a recorded run; called as a task it returns at once and the run goes on.`;
    const tool = server.registerTool(
      pipeline.name,
      { title: `stageloop ${pipeline.name}`, description, inputSchema: z.object(taskShape) },
      async ({ task }, ctx): Promise<CallToolResult> => {
        const asTask = era === 'legacy' ? askedForTask.has(ctx.mcpReq) : declaresTasks(ctx);
        let run: ProtocolRun;
        try {
          // MCP carries the caller's W3C trace context in the request's `_meta` (stdio has no headers).
          run = await keepingTraceHeaders(traceOfMeta(ctx.mcpReq._meta), () =>
            startProtocolRun(services, { pipeline: pipeline.name, task }),
          );
        } catch (error) {
          const known = asStageloopError(error);
          const { code, httpStatus } = errorFieldsOf(known);
          const refusal: CallToolResult = {
            content: [{ type: 'text', text: known.message }],
            isError: true,
            _meta: { 'stageloop/code': code, 'stageloop/httpStatus': httpStatus },
          };
          return era === 'legacy' && asTask ? ({ content: [], task: tasks.refused(refusal) } as never) : refusal;
        }
        // The SDK checks every tools/call result as a CallToolResult: a task carries an empty `content` beside it.
        if (asTask)
          return (
            era === 'legacy' ? { content: [], task: await tasks.task(run.runId) } : await taskCreated(tasks, run)
          ) as never;
        // The client's notifications/cancelled aborts this signal: the run stops at its next checkpoint.
        const cancel = () => run.cancel('the MCP client cancelled the call');
        ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
        const progress = forwardProgress(run, ctx);
        await run.result.catch(() => undefined);
        // Its last progress lines go out before its result.
        await progress;
        ctx.mcpReq.signal.removeEventListener('abort', cancel);
        return toolResultOfRun((await services.store.get(run.runId))!);
      },
    );
    // 2025-11-25 clients read whether a tool may be called as a task here (the 2026 codec leaves it out).
    tool.execution = { taskSupport: 'optional' };
  }
  if (era !== 'legacy' || services.pipelines.length === 0) return;
  // The SDK's own tools/call runs the callback; in front of it, a call's `task` param is noted for the callback.
  const low = server.server as unknown as { _getRequestHandler(method: string): ToolCallHandler | undefined };
  const toolsCall = low._getRequestHandler('tools/call')!;
  server.server.setRequestHandler('tools/call', (request, ctx) => {
    if ((request.params as { task?: unknown }).task !== undefined) askedForTask.add(ctx.mcpReq);
    return toolsCall(request, ctx) as Promise<CallToolResult>;
  });
}

/** Whether a 2026-07-28 request's own capabilities name the tasks extension (a task may only go to such a client). */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as
    Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined;
  return envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[tasksExtension] !== undefined;
}

/** 2026-07-28's CreateTaskResult: the task's fields flat beside `resultType: "task"`, never its result. */
async function taskCreated(tasks: RunTasks, run: ProtocolRun): Promise<Record<string, unknown>> {
  const { result: _result, ...task } = await tasks.detailed(run.runId);
  return { resultType: 'task', ...task };
}

/** One notifications/progress per progress line of the run, while the call's request can still be answered. */
async function forwardProgress(run: ProtocolRun, ctx: ServerContext): Promise<void> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return;
  let progress = 0;
  for await (const event of eventsOf(run.log, ctx.mcpReq.signal)) {
    const line = progressLineOf(event);
    if (line === undefined) continue;
    progress += 1;
    const sent = await ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress, message: line } })
      .then(
        () => true,
        () => false,
      );
    if (!sent) return;
  }
}
