// The A2A AgentExecutor: a message becomes a run (the skill names the pipeline), the run's progress becomes `working`
// status updates, its answer an artifact and the final status: completed, input-required (interrupted), canceled, failed.
import { randomUUID } from 'node:crypto';
import type { Message, Part, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { RunResult } from '../../engine/run-result.js';
import { StageloopError } from '../../common/stageloop-error.js';
import { approveToolsSchema } from '../request-schemas.js';
import { asStageloopError, errorFieldsOf } from './protocol-errors.js';
import { progressLineOf } from './progress-text.js';
import { agentNamedBy, answerTextOf, eventsOf, startProtocolRun, type ProtocolRun } from './protocol-runs.js';
import type { StartRunServices } from '../start-run.js';

// The SDK's enums, by value: `import type` keeps @a2a-js/sdk an optional package loaded only with the A2A routes.
const taskState = { submitted: 1, working: 2, completed: 3, failed: 4, canceled: 5, inputRequired: 6 } as const;
const agentRole = 2;

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

function agentMessage(taskId: string, contextId: string, text: string, metadata: Record<string, unknown>): Message {
  return {
    role: agentRole,
    messageId: randomUUID(),
    parts: [textPart(text)],
    taskId,
    contextId,
    extensions: [],
    metadata,
    referenceTaskIds: [],
  };
}

function textOfMessage(message: Message): string {
  return message.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
}

function finalStateOf(result: RunResult): number {
  if (result.status === 'interrupted') return taskState.inputRequired;
  if (result.status === 'cancelled') return taskState.canceled;
  if (result.status === 'failed') return taskState.failed;
  return taskState.completed;
}

/** Which pipeline a message asks for: `metadata.skill` (or `metadata.pipeline`) names it, else the default. */
function pipelineOf(message: Message, services: StartRunServices): string {
  const metadata = message.metadata ?? {};
  const named = metadata.skill ?? metadata.pipeline;
  return typeof named === 'string' && named !== '' ? named : services.defaultPipeline;
}

/** The configured agent a message asks for: `metadata.agent` (startRun checks the name), or a skill naming one. */
function agentOf(message: Message, services: StartRunServices): string | undefined {
  const { agent, skill } = message.metadata ?? {};
  if (typeof agent === 'string' && agent !== '') return agent;
  return typeof skill === 'string' ? agentNamedBy(skill, services) : undefined;
}

export class StageloopAgentExecutor implements AgentExecutor {
  readonly #runs = new Map<string, ProtocolRun>();

  constructor(private readonly services: StartRunServices) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = request;
    const status = (state: number, text?: string, metadata: Record<string, unknown> = {}): TaskStatusUpdateEvent => ({
      taskId,
      contextId,
      status: {
        state,
        timestamp: new Date().toISOString(),
        message: text === undefined ? undefined : agentMessage(taskId, contextId, text, metadata),
      },
      metadata,
    });
    const message = request.userMessage;
    if (request.task === undefined) {
      bus.publish({
        kind: 'task',
        data: {
          id: taskId,
          contextId,
          status: { state: taskState.submitted, timestamp: new Date().toISOString(), message: undefined },
          artifacts: [],
          history: [message],
          metadata: message.metadata ?? {},
        },
      });
    }
    let run: ProtocolRun;
    try {
      const approval = approveToolsSchema.optional().safeParse(message.metadata?.approveTools);
      if (!approval.success)
        throw new StageloopError('usage', 'metadata.approveTools must be a list of tool names or "all"');
      const approveTools = approval.data;
      const agent = agentOf(message, this.services);
      run = await startProtocolRun(this.services, {
        pipeline: pipelineOf(message, this.services),
        task: textOfMessage(message),
        ...(agent !== undefined && { agent }),
        ...(approveTools !== undefined && { approveTools }),
      });
    } catch (error) {
      const known = asStageloopError(error);
      bus.publish({ kind: 'statusUpdate', data: status(taskState.failed, known.message, errorFieldsOf(known)) });
      return;
    }
    this.#runs.set(taskId, run);
    try {
      bus.publish({ kind: 'statusUpdate', data: status(taskState.working, undefined, { runId: run.runId }) });
      for await (const event of eventsOf(run.log)) {
        const line = progressLineOf(event);
        if (line !== undefined)
          bus.publish({ kind: 'statusUpdate', data: status(taskState.working, line, { runId: run.runId }) });
      }
      const result = await run.result;
      const answer = answerTextOf(result);
      if (result.status === 'completed' || result.status === 'stopped') {
        const artifact = {
          artifactId: `answer-${run.runId}`,
          name: 'answer',
          description: `the answer of run ${run.runId}`,
          parts: [textPart(answer)],
          metadata: { runId: run.runId },
          extensions: [],
        };
        bus.publish({
          kind: 'artifactUpdate',
          data: { taskId, contextId, artifact, append: false, lastChunk: true, metadata: {} },
        });
      }
      bus.publish({
        kind: 'statusUpdate',
        data: status(finalStateOf(result), answer, {
          runId: run.runId,
          status: result.status,
          pending: result.pending ?? [],
        }),
      });
    } catch (error) {
      bus.publish({
        kind: 'statusUpdate',
        data: status(taskState.failed, asStageloopError(error).message, { runId: run.runId }),
      });
    } finally {
      this.#runs.delete(taskId);
    }
  };

  /** The run stops at its next checkpoint; execute then publishes the canceled state the handler waits for. */
  cancelTask = async (taskId: string): Promise<void> => {
    this.#runs.get(taskId)?.cancel('the A2A client cancelled the task');
  };
}
