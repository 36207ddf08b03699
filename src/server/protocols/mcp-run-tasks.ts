// MCP tasks kept in the run store: a task is a recorded run and its id is the run id, so a task outlives the session,
// the server and a kill -9. Both shapes are served: 2025-11-25's core tasks (tasks/get, tasks/result, tasks/list,
// tasks/cancel) and 2026-07-28's tasks extension (`io.modelcontextprotocol/tasks`: tasks/get with the result inlined,
// tasks/cancel, tasks/update).
import type { CallToolResult, Task } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StageloopError } from '../../common/stageloop-error.js';
import type { RunSummary, RunStore } from '../../store/types.js';
import type { RunContinuation, RunHost } from '../run-host.js';
import { answerTextOf } from './protocol-runs.js';

/** How often a client should ask about a task (ms): a run's turns take seconds. */
export const taskPollInterval = 500;
/** The tasks extension of MCP 2026-07-28 (SEP-2663), as clients and servers name it in their capabilities. */
export const tasksExtension = 'io.modelcontextprotocol/tasks';
/** Tasks listed a page. */
const listPage = 50;
/** Starts refused before they had a run, kept for their result (the oldest dropped first). */
const keptRefusals = 100;

/** Continues a run whose process died (the application assembles it again from its recipe). */
export type RunRecoverer = (runId: string) => Promise<RunContinuation>;

/** What a task of a run needs: the store it is recorded in, the host that runs it here, and a way to continue it. */
export interface RunTaskServices {
  store: RunStore;
  host: RunHost;
  continueDeadRun?: RunRecoverer;
}

/** A task in 2026-07-28's shape (the extension's DetailedTask): the result inlined once the run ended. */
export type DetailedTask = {
  taskId: string;
  status: Task['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: null;
  pollIntervalMs: number;
  result?: CallToolResult;
};

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

const isEnded = (status: Task['status']) => status === 'completed' || status === 'failed' || status === 'cancelled';

export class RunTasks {
  readonly #refused = new Map<string, { task: Task; result: CallToolResult }>();
  /** Runs this process is continuing, so a poll does not start a second continuation. */
  readonly #recovering = new Set<string>();

  constructor(private readonly services: RunTaskServices) {}

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

  /** The task in 2025-11-25's shape; a run recorded as running whose owner died goes on here. */
  async task(taskId: string): Promise<Task> {
    const refused = this.#refused.get(taskId);
    if (refused !== undefined) return refused.task;
    return taskOfRun(await this.#run(taskId));
  }

  /**
   * The task in 2026-07-28's shape: a run that ended is `completed` with its tool result inlined (a failed run is a
   * tool error, not a JSON-RPC one), a cancelled one `cancelled`. A run waiting for a person stays `working` with
   * a message saying where to decide: its decision belongs to stageloop's gate, not to this client.
   */
  async detailed(taskId: string): Promise<DetailedTask> {
    const refused = this.#refused.get(taskId);
    const task = refused?.task ?? taskOfRun(await this.#run(taskId));
    const { ttl: _ttl, pollInterval: _poll, ...fields } = task;
    const status = task.status === 'failed' ? 'completed' : task.status === 'input_required' ? 'working' : task.status;
    const result = refused?.result ?? (isEnded(task.status) ? await this.result(taskId) : undefined);
    return {
      ...fields,
      status,
      ttlMs: null,
      pollIntervalMs: taskPollInterval,
      ...(status === 'completed' && result !== undefined && { result }),
    };
  }

  /** 2025-11-25's tasks/result: waits for the run to end (here, or in the process that continues it) and answers it. */
  async result(taskId: string, signal?: AbortSignal): Promise<CallToolResult> {
    const refused = this.#refused.get(taskId);
    if (refused !== undefined) return refused.result;
    for (;;) {
      const run = await this.#run(taskId);
      if (isEnded(statusOfRun[run.status]) || run.status === 'interrupted') return toolResultOfRun(run);
      const here = this.services.host.result(taskId);
      // A run another process holds is read again after a poll interval: its end is only in the store.
      await (here ?? sleep(taskPollInterval, undefined, { signal }));
    }
  }

  /** Only a client's cancel: the run stops at its next checkpoint, and the task is cancelled then. */
  async cancel(taskId: string): Promise<Task> {
    const { host } = this.services;
    if (!host.cancel(taskId, 'the MCP client cancelled the task')) {
      const task = await this.task(taskId);
      if (isEnded(task.status))
        throw new StageloopError('conflict', `task ${taskId} has ended ${task.status}: it cannot be cancelled`);
      throw new StageloopError('conflict', `task ${taskId} is not running in this server: it cannot be cancelled here`);
    }
    await host.result(taskId);
    return this.task(taskId);
  }

  async list(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const runs = await this.services.store.list({
      limit: listPage + 1,
      ...(cursor !== undefined && { before: cursor }),
    });
    const page = runs.slice(0, listPage);
    return { tasks: page.map(taskOfRun), ...(runs.length > listPage && { nextCursor: page.at(-1)!.runId }) };
  }

  async #run(taskId: string): Promise<RunSummary> {
    const run = await this.services.store.get(taskId);
    if (run === undefined) throw new StageloopError('not_found', `no task ${taskId}: no run with this id is recorded`);
    if (run.status === 'running') this.#continueIfDead(run.runId);
    return run;
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

/** A run as a 2025-11-25 task. */
export function taskOfRun(run: RunSummary): Task {
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
