// The tasks a server asks stageloop to run (a sampling or elicitation request with `task`): created at once, polled,
// read once the work ends, cancelled; an unknown task id is an error. The sweep drives them through server-everything.
import { describe, expect, it } from 'vitest';
import { ClientTasks } from '../../src/tools/mcp/client-tasks.js';

function deferred<Value>() {
  let resolve!: (value: Value) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<Value>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

describe('ClientTasks', () => {
  it('answers with a working task at once, completes with the work, and hands back its result marked with the task', async () => {
    const tasks = new ClientTasks();
    const work = deferred<{ action: string }>();
    const { task } = tasks.start(60_000, () => work.promise);
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: expect.any(Number) });
    expect(tasks.get(task.taskId).status).toBe('working');
    const result = tasks.result(task.taskId);
    work.resolve({ action: 'decline' });
    expect(await result).toEqual({
      action: 'decline',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
    });
    expect(tasks.get(task.taskId).status).toBe('completed');
    expect(tasks.list().tasks.map((each) => each.taskId)).toEqual([task.taskId]);
  });

  it('a failed work is a failed task with its message; its result is the error', async () => {
    const tasks = new ClientTasks();
    const { task } = tasks.start(undefined, async () => {
      throw new Error('no model to sample with');
    });
    await expect(tasks.result(task.taskId)).rejects.toThrow('no model to sample with');
    expect(tasks.get(task.taskId)).toMatchObject({ status: 'failed', statusMessage: 'no model to sample with' });
  });

  it('cancel aborts the work and marks the task; an unknown id is an error', async () => {
    const tasks = new ClientTasks();
    let aborted: AbortSignal | undefined;
    const { task } = tasks.start(1_000, (signal) => {
      aborted = signal;
      return new Promise(() => undefined);
    });
    expect(tasks.cancel(task.taskId).status).toBe('cancelled');
    expect(aborted?.aborted).toBe(true);
    expect(() => tasks.get('nope')).toThrow('no task "nope"');
  });
});
