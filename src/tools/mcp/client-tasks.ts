// Requests a server asks stageloop to run as tasks (MCP 2025-11-25 tasks, the client's side): a sampling or
// elicitation request that carries `task` is answered at once with a task, its work (the person through the gate, the
// run's model) goes on, and the server polls `tasks/get` and reads `tasks/result`. The SDK v2 has no task runtime.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type {
  Client,
  ClientCapabilities,
  ClientContext,
  JSONRPCRequest,
  Result,
  Task,
} from '@modelcontextprotocol/client';
import type { McpSdk } from './sdk.js';

/** Declared to every server: it may ask for sampling and elicitation as tasks (server-everything's `-async` tools). */
export const TASK_CAPABILITIES: ClientCapabilities = {
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

/** The requests a server may send as tasks. */
const TASK_METHODS = new Set(['sampling/createMessage', 'elicitation/create']);
/** How often a server should poll (ms), and how long a finished task is kept without a `ttl` of its own. */
const POLL_INTERVAL_MS = 500;
const DEFAULT_TTL_MS = 300_000;
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

type Handler = (request: JSONRPCRequest, context: ClientContext) => Promise<Result>;

interface Entry {
  task: Task;
  outcome: Promise<Result>;
  abort: AbortController;
}

/** The tasks of one connection: created by a server's task-augmented request, dropped once their `ttl` passed. */
export class ClientTasks {
  readonly #entries = new Map<string, Entry>();

  /** Starts `work` as a task and returns what the server gets at once (`CreateTaskResult`). */
  start(ttl: number | undefined, work: (signal: AbortSignal) => Promise<Result>): { task: Task } {
    const now = new Date().toISOString();
    const task: Task = {
      taskId: randomUUID(),
      status: 'working',
      ttl: ttl ?? DEFAULT_TTL_MS,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: POLL_INTERVAL_MS,
    };
    const abort = new AbortController();
    const outcome = work(abort.signal);
    const entry: Entry = { task, outcome, abort };
    this.#entries.set(task.taskId, entry);
    outcome.then(
      () => this.#settle(entry, 'completed'),
      (error: unknown) => this.#settle(entry, 'failed', error instanceof Error ? error.message : String(error)),
    );
    return { task: { ...task } };
  }

  get(taskId: string): Task {
    return { ...this.#entry(taskId).task };
  }

  /** The request's own result once the task ends (the server waits here), marked with the task it belongs to. */
  result(taskId: string): Promise<Result> {
    return this.#entry(taskId).outcome.then((result) => ({
      ...result,
      _meta: { ...result._meta, [RELATED_TASK]: { taskId } },
    }));
  }

  cancel(taskId: string): Task {
    const entry = this.#entry(taskId);
    if (entry.task.status === 'working') {
      this.#settle(entry, 'cancelled');
      entry.abort.abort();
    }
    return { ...entry.task };
  }

  list(): { tasks: Task[] } {
    return { tasks: [...this.#entries.values()].map((entry) => ({ ...entry.task })) };
  }

  #entry(taskId: string): Entry {
    const entry = this.#entries.get(taskId);
    if (entry === undefined) throw new TaskNotFound(taskId);
    return entry;
  }

  #settle(entry: Entry, status: Task['status'], message?: string): void {
    if (entry.task.status !== 'working') return;
    entry.task = {
      ...entry.task,
      status,
      lastUpdatedAt: new Date().toISOString(),
      ...(message !== undefined && { statusMessage: message }),
    };
    const ttl = entry.task.ttl;
    if (ttl !== null) setTimeout(() => this.#entries.delete(entry.task.taskId), ttl).unref();
  }
}

class TaskNotFound extends Error {
  constructor(taskId: string) {
    super(`no task ${JSON.stringify(taskId)}`);
  }
}

const taskId = z.looseObject({ taskId: z.string() });

/**
 * The SDK's Client, able to answer a sampling or elicitation request as a task: the SDK checks each answer against
 * the request's result shape (a task is not one), so the task is made around the SDK's checked handler.
 */
export function taskingClient(sdk: McpSdk): typeof Client {
  return class TaskingClient extends sdk.Client {
    tasks = new ClientTasks();

    protected override _wrapHandler(method: string, handler: Handler): Handler {
      const checked = super._wrapHandler(method, handler);
      if (!TASK_METHODS.has(method)) return checked;
      return async (request, context) => {
        const { task, ...params } = (request.params ?? {}) as { task?: { ttl?: number } };
        if (task === undefined || task === null || typeof task !== 'object') return checked(request, context);
        return this.tasks.start(task.ttl, () => checked({ ...request, params }, context));
      };
    }

    constructor(...args: ConstructorParameters<typeof Client>) {
      super(...args);
      this.#serveTasks();
    }

    #serveTasks(): void {
      const found = <Value>(read: () => Value): Value => {
        try {
          return read();
        } catch (error) {
          if (error instanceof TaskNotFound)
            throw new sdk.ProtocolError(sdk.ProtocolErrorCode.InvalidParams, error.message);
          throw error;
        }
      };
      this.setRequestHandler('tasks/get', { params: taskId }, (params) => found(() => this.tasks.get(params.taskId)));
      this.setRequestHandler('tasks/result', { params: taskId }, (params) =>
        found(() => this.tasks.result(params.taskId)),
      );
      this.setRequestHandler('tasks/cancel', { params: taskId }, (params) =>
        found(() => this.tasks.cancel(params.taskId)),
      );
      this.setRequestHandler('tasks/list', { params: z.looseObject({}) }, () => this.tasks.list());
    }
  } as unknown as typeof Client;
}
