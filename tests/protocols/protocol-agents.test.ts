// A configured agent through each protocol door of a real serve, with each door's own client: A2A (`metadata.agent`,
// or a skill naming an agent; the card lists the agents), POST /v1/chat (`agent` in the body useChat sends) and
// /v1/chat/completions (`agent`, or a `model` naming an agent; GET /v1/models lists them). Each run is the agent, as
// POST /v1/runs with `agent` makes it (recorded in its recipe); an unknown agent is the same one-line error.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { chat } from './ui-chat-client.js';
import { send, userMessage } from './a2a-messages.js';
import { useServes, waitForStatus, type TestServe } from '../server/serve-support.js';

const serves = useServes();
const teamConfig = fileURLToPath(new URL('../../examples/agents/stageloop.config.json', import.meta.url));
const TASK = 'Compute 12 * 7; compute 100 - 58';
const UNKNOWN = 'agent: unknown agent "nobody": choose one of coordinator, triage, reception, multiplier, subtractor';

/** The run's recorded agent and pipeline, once it completed. */
async function agentOfRun(serve: TestServe, runId: string): Promise<{ agent?: string; pipeline: string }> {
  const view = (await waitForStatus(serve, runId, ['completed'])) as unknown as {
    run: { pipeline: string; options: { recipe: { agent?: string } } };
  };
  return {
    pipeline: view.run.pipeline,
    ...(view.run.options.recipe.agent && { agent: view.run.options.recipe.agent }),
  };
}

describe('a configured agent through each protocol door', () => {
  it('A2A: metadata.agent (or a skill naming an agent) runs the agent; the card lists the agents', async () => {
    const serve = await serves.start({}, { config: teamConfig });
    const client = await new ClientFactory().createFromUrl(serve.running.url);
    const card = await client.getAgentCard();
    expect(card.skills.map((skill) => skill.id)).toEqual(expect.arrayContaining(['react', 'coordinator', 'triage']));
    for (const metadata of [{ agent: 'coordinator' }, { skill: 'multiplier' }]) {
      const sent = (await client.sendMessage(send(userMessage(TASK, metadata)))) as Task;
      expect(sent.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const runId = sent.status!.message!.metadata!.runId as string;
      expect(await agentOfRun(serve, runId)).toEqual({ agent: metadata.agent ?? metadata.skill, pipeline: 'react' });
    }
    const unknown = (await client.sendMessage(send(userMessage(TASK, { agent: 'nobody' })))) as Task;
    expect(unknown.status!.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(unknown.status!.message!.parts[0]!.content).toEqual({ $case: 'text', value: UNKNOWN });
  });

  it('POST /v1/chat: the body useChat sends with `agent` runs the agent', async () => {
    const serve = await serves.start({}, { config: teamConfig });
    const { message } = await chat(serve, [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: TASK }] }], {
      agent: 'coordinator',
    });
    const { runId } = message.metadata as { runId: string };
    expect(await agentOfRun(serve, runId)).toEqual({ agent: 'coordinator', pipeline: 'react' });
    const unknown = await fetch(`${serve.running.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: TASK }] }],
        agent: 'nobody',
      }),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(UNKNOWN);
  });

  it('/v1/chat/completions: `agent` or a `model` naming an agent runs it; /v1/models lists the agents', async () => {
    const serve = await serves.start({}, { config: teamConfig });
    const client = new OpenAI({ baseURL: `${serve.running.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 60_000 });
    const models = (await client.models.list()).data.map((model) => model.id);
    expect(models).toEqual(expect.arrayContaining(['react', 'plan-execute-replan', 'coordinator', 'subtractor']));
    const runIdOf = async (body: OpenAI.ChatCompletionCreateParamsNonStreaming & { agent?: string }) =>
      (await client.chat.completions.create(body).withResponse()).response.headers.get('x-stageloop-run-id')!;
    const messages = [{ role: 'user' as const, content: TASK }];
    const byField = await runIdOf({ model: 'react', messages, agent: 'coordinator' });
    expect(await agentOfRun(serve, byField)).toEqual({ agent: 'coordinator', pipeline: 'react' });
    const byModel = await runIdOf({ model: 'subtractor', messages });
    expect(await agentOfRun(serve, byModel)).toEqual({ agent: 'subtractor', pipeline: 'react' });
    await expect(
      client.chat.completions.create({ model: 'react', messages, agent: 'nobody' } as never),
    ).rejects.toThrow(UNKNOWN);
  });
});
