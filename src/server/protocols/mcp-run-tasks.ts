// MCP tasks (2025-11-25) kept in the run store: a task is a recorded run and its id is the run id, so tasks/get,
// tasks/result, tasks/cancel and tasks/list read the store, and a task outlives the session, the server and a kill -9.
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { StageloopError } from '../../common/stageloop-error.js';
import type { RunSummary, RunStore } from '../../store/types.js';
import type { RunContinuation, RunHost } from '../run-host.js';
import { answerTextOf } from './protocol-runs.js';

/** How often a client should ask about a task (ms): a run's turns take seconds. */
export const taskPollInterval = 500;
/** Tasks listed a page. */
const listPage = 50;
/** Starts refused before they had a run, kept for their tasks/result (the oldest dropped first). */
const keptRefusals = 100;

/** Continues a run whose process died (the application assembles it again from its recipe). */
export type RunRecoverer = (runId: string) => Promise<RunContinuation>;

/** What a task of a run needs: the store it is recorded in, the host that runs it here, and a way to continue it. */
export interface RunTaskServices {
  store: RunStore;
  host: RunHost;
  continueDeadRun?: RunRecoverer;
}

const statusOfRun: Record<RunSummary['status'], Task['status']> = {
  running: 'working',
  interrupted: 'input_required',
  completed: 'completed',
  // A run stopped by a limit ended on its own terms: its (partial) answer is the result.
  stopped: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** The result a tools/call gives for a run that ended: its answer as text, the run id and status in `_meta`. */
export function toolResultOfRun(run: RunSummary): CallToolResult {
  const status = run.outcome?.status ?? run.status;
  return {
    content: [{ type: 'text', text: answerTextOfRun(run) }],
    isError: status === 'failed' || status === 'cancelled',
    _meta: { 'stageloop/runId': run.runId, 'stageloop/status': status },
  };
}

export class RunTaskStore implements TaskStore {
  readonly #refused = new Map<string, { task: Task; result: CallToolResult }>();
  /** Runs this process is continuing, so a poll does not start a second continuation. */
  readonly #recovering = new Set<string>();

  constructor(private readonly services: RunTaskServices) {}

  /**
   * The task of a run the tool handler started (`context.runId`). A plain tools/call (no `task` in its params) waits
   * here for the run to end, so the SDK's own wait for an optional task finds it done and answers at once.
   */
  async createTask(
    params: { context?: Record<string, unknown> },
    _requestId: RequestId,
    request: Request,
  ): Promise<Task> {
    const runId = params.context?.runId;
    if (typeof runId !== 'string') throw new StageloopError('internal', 'an MCP task is started by a tools/call');
    if ((request.params as { task?: unknown } | undefined)?.task === undefined) await this.services.host.result(runId);
    return (await this.getTask(runId))!;
  }

  /** A start the server refused before any run existed (an empty task, an unknown pipeline): a failed task. */
  refused(result: CallToolResult): Task {
    const now = new Date().toISOString();
    const task: Task = {
      taskId: `refused-${randomUUID()}`,
      status: 'failed',
      ttl: null,
      createdAt: now,
      lastUpdatedAt: now,
    };
    this.#refused.set(task.taskId, { task, result });
    if (this.#refused.size > keptRefusals) this.#refused.delete(this.#refused.keys().next().value!);
    return task;
  }

  async getTask(taskId: string): Promise<Task | null> {
    const refused = this.#refused.get(taskId);
    if (refused !== undefined) return refused.task;
    const run = await this.services.store.get(taskId);
    if (run === undefined) return null;
    if (run.status === 'running') this.#continueIfDead(run.runId);
    return taskOfRun(run);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const refused = this.#refused.get(taskId);
    if (refused !== undefined) return refused.result;
    const run = await this.services.store.get(taskId);
    if (run === undefined) throw new StageloopError('not_found', `no task ${taskId}: no run with this id is recorded`);
    return toolResultOfRun(run);
  }

  /** The run records its own result; nothing else may write one. */
  async storeTaskResult(taskId: string): Promise<void> {
    throw new StageloopError('conflict', `task ${taskId} is a run: its result is the run's own`);
  }

  /** Only a cancel comes from a client: the run stops at its next checkpoint, and the task is cancelled then. */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') throw new StageloopError('conflict', `task ${taskId}: only a cancel can change a run`);
    const { host } = this.services;
    if (!host.cancel(taskId, 'the MCP client cancelled the task'))
      throw new StageloopError('conflict', `task ${taskId} is not running in this server: it cannot be cancelled here`);
    await host.result(taskId);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const runs = await this.services.store.list({
      limit: listPage + 1,
      ...(cursor !== undefined && { before: cursor }),
    });
    const page = runs.slice(0, listPage);
    return { tasks: page.map(taskOfRun), ...(runs.length > listPage && { nextCursor: page.at(-1)!.runId }) };
  }

  /** A run recorded as running that no process here runs: if its owner died (the claim says), it goes on here. */
  #continueIfDead(runId: string): void {
    const { host, continueDeadRun: recover } = this.services;
    if (recover === undefined || host.isActive(runId) || this.#recovering.has(runId)) return;
    this.#recovering.add(runId);
    void recover(runId)
      .then((continuation) => host.continue(runId, continuation))
      .then(() => host.result(runId))
      // A run another live process holds is refused (busy): it stays theirs.
      .catch(() => undefined)
      .finally(() => this.#recovering.delete(runId));
  }
}

/** The run's answer, or one line saying why there is none (as a live run's result says it). */
function answerTextOfRun(run: RunSummary): string {
  const outcome = run.outcome;
  if (outcome === null) return `The run ${run.runId} is ${run.status}`;
  const result = outcome.result as unknown as Parameters<typeof answerTextOf>[0];
  return answerTextOf({ ...result, runId: run.runId, status: outcome.status, answer: outcome.answer });
}

function taskOfRun(run: RunSummary): Task {
  const status = statusOfRun[run.status];
  return {
    taskId: run.runId,
    status,
    ttl: null,
    createdAt: new Date(run.createdAt).toISOString(),
    lastUpdatedAt: new Date(run.updatedAt).toISOString(),
    pollInterval: taskPollInterval,
    ...(status === 'input_required' && { statusMessage: answerTextOfRun(run) }),
  };
}
