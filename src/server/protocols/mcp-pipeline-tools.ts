// One MCP tool per pipeline (input { task }, the answer as text). A call with `task` in its params returns a task at
// once (the run goes on, durable); a plain call waits for the run. Progress notifications come from the run's events,
// and the client's cancel cancels the run.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { z } from 'zod';
import { asStageloopError, errorFieldsOf } from './protocol-errors.js';
import { progressLineOf } from './progress-text.js';
import { eventsOf, startProtocolRun, type ProtocolRun } from './protocol-runs.js';
import { keepingTraceHeaders, type StartRunServices } from '../start-run.js';
import type { RunTaskStore } from './mcp-run-tasks.js';
import { traceOfMeta } from './mcp-trace.js';

export const taskShape = { task: z.string().min(1).describe('what the agent should do, in plain words') };

export function registerPipelineTools(server: McpServer, services: StartRunServices, tasks: RunTaskStore): void {
  for (const pipeline of services.pipelines) {
    const description = `Runs the stageloop "${pipeline.name}" agent on a task and returns its answer (stages: ${pipeline.iteration.join(', ')}). Every call is a recorded run; called as a task it returns at once and the run goes on.`;
    server.experimental.tasks.registerToolTask(
      pipeline.name,
      {
        title: `stageloop ${pipeline.name}`,
        description,
        inputSchema: taskShape,
        execution: { taskSupport: 'optional' },
      },
      {
        createTask: async ({ task }, extra): Promise<CreateTaskResult> => {
          let run: ProtocolRun;
          try {
            // MCP carries the caller's W3C trace context in the request's `_meta` (stdio has no headers).
            run = await keepingTraceHeaders(traceOfMeta(extra._meta), () =>
              startProtocolRun(services, { pipeline: pipeline.name, task }),
            );
          } catch (error) {
            const known = asStageloopError(error);
            const { code, httpStatus } = errorFieldsOf(known);
            const refusal = {
              content: [{ type: 'text' as const, text: known.message }],
              isError: true,
              _meta: { 'stageloop/code': code, 'stageloop/httpStatus': httpStatus },
            };
            return { task: tasks.refused(refusal) };
          }
          // The client's notifications/cancelled aborts this signal: the run stops at its next checkpoint.
          const cancel = () => run.cancel('the MCP client cancelled the call');
          extra.signal.addEventListener('abort', cancel, { once: true });
          const progress = forwardProgress(run, extra);
          const created = await extra.taskStore.createTask({ context: { runId: run.runId } });
          // A plain call waited for the run: its last progress lines go out before its result.
          if (created.status !== 'working' && created.status !== 'input_required') {
            await progress;
            extra.signal.removeEventListener('abort', cancel);
          }
          return { task: created };
        },
        getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
      },
    );
  }
}

/** One notifications/progress per progress line of the run, while the call's request can still be answered. */
async function forwardProgress(run: ProtocolRun, extra: CreateTaskRequestHandlerExtra): Promise<void> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return;
  let progress = 0;
  for await (const event of eventsOf(run.log, extra.signal)) {
    const line = progressLineOf(event);
    if (line === undefined) continue;
    progress += 1;
    const sent = await extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message: line } })
      .then(
        () => true,
        () => false,
      );
    // The request was answered (a task) and its stream closed: the task's status is read with tasks/get.
    if (!sent) return;
  }
}
