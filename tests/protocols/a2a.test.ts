// The A2A SDK's own client (ClientFactory().createFromUrl) against a real serve: card, send, stream, get, cancel,
// and an interrupted run as input-required.
import { describe, expect, it } from 'vitest';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { send, userMessage } from './a2a-messages.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { loopbackModelEnv, useServes, waitFor, waitForStatus } from '../server/serve-support.js';

const serves = useServes();
const loopback = useLoopbackServer();

const textOf = (message: Message | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('');
const answerOf = (task: Task) =>
  task.artifacts
    .flatMap((artifact) => artifact.parts)
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('');
const isTask = (value: Message | Task): value is Task => 'status' in value;

describe('A2A through @a2a-js/sdk', () => {
  it('serves a card whose interface points at this server, one skill per pipeline', async () => {
    const serve = await serves.start();
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${serve.running.url}/a2a`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.skills.map((skill) => skill.id).sort()).toEqual(['plan-execute-replan', 'react']);
    expect(card.capabilities?.streaming).toBe(true);
  });

  it('sendMessage returns a task whose getTask reaches the answer; the run is an ordinary recorded run', async () => {
    const serve = await serves.start();
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const sent = await client.sendMessage(send(userMessage('What is 17 * 23 + 4?')));
    expect(isTask(sent)).toBe(true);
    // Blocking by default: the task comes back finished, with the answer.
    expect((sent as Task).status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(sent as Task)).toContain('395');
    const task = await client.getTask({ tenant: '', id: (sent as Task).id, historyLength: undefined });
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toContain('395');
    expect(textOf(task.status!.message)).toContain('395');
    const runId = (task.artifacts[0]!.metadata as { runId: string }).runId;
    await waitForStatus(serve, runId, ['completed']);
  });

  it('streams a task: submitted, working updates with the progress, the answer artifact, completed', async () => {
    const serve = await serves.start();
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const updates = [];
    for await (const update of client.sendMessageStream(
      send(userMessage('What is 12 * 12, then add 10?', { skill: 'plan-execute-replan' })),
    ))
      updates.push(update);
    const kinds = updates.map((update) => update.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    const statuses = updates.flatMap((update) =>
      update.payload?.$case === 'statusUpdate' ? [update.payload.value.status!] : [],
    );
    expect(
      statuses.some(
        (status) => status.state === TaskState.TASK_STATE_WORKING && textOf(status.message).startsWith('Plan: 1.'),
      ),
    ).toBe(true);
    expect(statuses.at(-1)!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(statuses.at(-1)!.message)).toContain('154');
  });

  it('cancelTask cancels the run behind the task', async () => {
    loopback.server.hang();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const stream = client.sendMessageStream(send(userMessage('a long task')));
    const first = await stream.next();
    const taskId = first.value!.payload!.$case === 'task' ? first.value!.payload!.value.id : '';
    await waitFor(async () => (loopback.server.requests.length > 0 ? true : undefined), 'the model request');
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    const { runs } = (await (await serve.call('/v1/runs')).json()) as { runs: Array<{ status: string }> };
    expect(runs[0]!.status).toBe('cancelled');
    await stream.return(undefined);
  });

  it('an interrupted run is input-required; the decisions endpoint continues it', async () => {
    const serve = await serves.start();
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const sent = (await client.sendMessage(
      send(userMessage('What is 6 * 7?', { approveTools: ['calculator'] })),
    )) as Task;
    expect(sent.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(sent.status!.message)).toMatch(/waiting for a decision/);
    const { runId, pending } = sent.status!.message!.metadata as { runId: string; pending: Array<{ id: string }> };
    const decided = await serve.call(`/v1/runs/${runId}/decisions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ callId: pending[0]!.id, approve: true }] }),
    });
    expect(decided.status).toBe(202);
    await waitForStatus(serve, runId, ['completed']);
  });

  it('an unknown skill fails the task with one line naming the skills', async () => {
    const serve = await serves.start();
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const sent = (await client.sendMessage(send(userMessage('2 + 2?', { skill: 'nope' })))) as Task;
    expect(sent.status!.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(sent.status!.message)).toContain('unknown pipeline "nope": choose one of react, plan-execute-replan');
  });
});
