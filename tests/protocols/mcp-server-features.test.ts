// stageloop's MCP server features beyond tools, through the SDK client on a real serve's /mcp: recorded runs as
// resources (JSON and the text timeline, listed, completed, subscribed while the run goes on), a prompt per pipeline
// with its task completed from past runs, tasks cancelled, and a dropped SSE stream resumed with Last-Event-ID.
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sqliteSessions } from '../../src/sessions/sqlite-sessions.js';
import { sessionScope } from '../../src/sessions/types.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, loopbackModelEnv, readEvents, useServes, waitFor, waitForStatus } from '../server/serve-support.js';

const serves = useServes();
const loopback = useLoopbackServer();

async function connected(url: string): Promise<Client> {
  const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe('stageloop as an MCP server: resources, prompts, completions, tasks, resumable streams', () => {
  it('serves a recorded run as JSON and as its text timeline, lists it and completes its id', async () => {
    const serve = await serves.start();
    const started = await serve.call('/v1/runs', jsonPost({ task: 'What is 17 * 23 + 4?' }));
    const { runId } = (await started.json()) as { runId: string };
    await waitForStatus(serve, runId, ['completed']);
    const client = await connected(serve.running.url);
    try {
      const listed = await client.listResources();
      expect(listed.resources.map((resource) => resource.uri)).toContain(`stageloop://runs/${runId}`);
      const templates = await client.listResourceTemplates();
      expect(templates.resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual([
        'stageloop://runs/{id}',
        'stageloop://runs/{id}/timeline',
        'stageloop://sessions/{user}/{session}/facts',
      ]);
      const json = await client.readResource({ uri: `stageloop://runs/${runId}` });
      const view = JSON.parse((json.contents[0] as { text: string }).text) as {
        run: { status: string };
        timeline: unknown[];
      };
      expect(view.run.status).toBe('completed');
      expect(view.timeline.length).toBeGreaterThan(0);
      const text = await client.readResource({ uri: `stageloop://runs/${runId}/timeline` });
      expect(text.contents[0]).toMatchObject({ mimeType: 'text/plain' });
      expect((text.contents[0] as { text: string }).text).toMatch(
        new RegExp(`^run ${runId}: completed\\n[\\s\\S]*calculator`),
      );
      const completed = await client.complete({
        ref: { type: 'ref/resource', uri: 'stageloop://runs/{id}' },
        argument: { name: 'id', value: runId.slice(0, 4) },
      });
      expect(completed.completion.values).toContain(runId);
    } finally {
      await client.close();
    }
  });

  it("serves a session's facts as JSON, lists the sessions of recorded runs and completes their names", async () => {
    const serve = await serves.start();
    const started = await serve.call('/v1/runs', jsonPost({ task: 'What is 6 * 7?', session: 'work-notes' }));
    await waitForStatus(serve, ((await started.json()) as { runId: string }).runId, ['completed']);
    const beside = sqliteSessions(serve.storeFile);
    await beside.setFact(sessionScope('work-notes'), { key: 'colour', value: 'teal', sourceRun: 'r1', updated: 1 });
    beside.close();
    const client = await connected(serve.running.url);
    try {
      const uri = 'stageloop://sessions/default/work-notes/facts';
      expect((await client.listResources()).resources).toContainEqual(
        expect.objectContaining({ uri, mimeType: 'application/json' }),
      );
      const read = await client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({
        user: 'default',
        session: 'work-notes',
        facts: [{ key: 'colour', value: 'teal', sourceRun: 'r1', updated: 1 }],
      });
      const completed = await client.complete({
        ref: { type: 'ref/resource', uri: 'stageloop://sessions/{user}/{session}/facts' },
        argument: { name: 'session', value: 'work' },
        context: { arguments: { user: 'default' } },
      });
      expect(completed.completion.values).toEqual(['work-notes']);
      // A name with path characters is refused as everywhere else.
      await expect(client.readResource({ uri: 'stageloop://sessions/default/..%2Fx/facts' })).rejects.toThrow(
        /session name .* has path characters|is not a plain name/,
      );
    } finally {
      await client.close();
    }
  });

  it('offers a prompt per pipeline and completes its task from the tasks of recorded runs', async () => {
    const serve = await serves.start();
    const started = await serve.call('/v1/runs', jsonPost({ task: 'What is 12 * 12?' }));
    await waitForStatus(serve, ((await started.json()) as { runId: string }).runId, ['completed']);
    const client = await connected(serve.running.url);
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['plan-execute-replan', 'react']);
      expect(prompts[0]!.arguments).toEqual([expect.objectContaining({ name: 'task', required: true })]);
      const prompt = await client.getPrompt({ name: 'react', arguments: { task: 'What is 2 + 2?' } });
      expect(prompt.messages[0]!.content).toMatchObject({
        type: 'text',
        text: expect.stringContaining('What is 2 + 2?'),
      });
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'react' },
        argument: { name: 'task', value: 'what is 1' },
      });
      expect(completed.completion.values).toEqual(['What is 12 * 12?']);
    } finally {
      await client.close();
    }
  });

  it('sends resources/updated while a subscribed run goes on, and a task is cancelled with tasks/cancel', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
    loopback.server.hang();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const client = await connected(serve.running.url);
    try {
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.push(notification.params.uri);
      });
      const created = await client.request(
        { method: 'tools/call', params: { name: 'react', arguments: { task: 'six times seven?' }, task: {} } },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      await client.subscribeResource({ uri: `stageloop://runs/${taskId}` });
      // The second model call hangs: the stages before it have ended and been announced.
      await waitFor(async () => (loopback.server.requests.length > 1 ? true : undefined), 'the second model call');
      await waitFor(async () => (updates.length > 0 ? true : undefined), 'a resources/updated notification');
      expect(new Set(updates)).toEqual(new Set([`stageloop://runs/${taskId}`]));
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled.status).toBe('cancelled');
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result).toMatchObject({ isError: true, _meta: { 'stageloop/status': 'cancelled' } });
    } finally {
      await client.close();
    }
  });

  it('replays what a dropped SSE stream missed when the client comes back with Last-Event-ID', async () => {
    const serve = await serves.start();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialize = await serve.call('/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = initialize.headers.get('mcp-session-id')!;
    const [reply] = await readEvents(initialize, (event) => event.data !== '');
    expect(reply!.id).toBeDefined();
    const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await serve.call('/mcp', {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    // A call whose stream the client drops after the first event (the priming event, id only)...
    const call = await serve.call('/mcp', {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'react', arguments: { task: 'What is 6 * 7?' } },
      }),
    });
    const [priming] = await readEvents(call, () => true);
    expect(priming!.id).toBeDefined();
    await waitFor(async () => {
      const { runs } = (await (await serve.call('/v1/runs')).json()) as { runs: Array<{ status: string }> };
      return runs[0]?.status === 'completed' ? true : undefined;
    }, 'the run to end');
    // ...gets its answer on the resumed stream, after the run ended.
    const resumed = await serve.call('/mcp', {
      method: 'GET',
      headers: { ...sessionHeaders, accept: 'text/event-stream', 'last-event-id': priming!.id! },
    });
    const events = await readEvents(resumed, (event) => event.data.includes('"id":2'));
    const answer = JSON.parse(events.at(-1)!.data) as { result: { content: Array<{ text: string }> } };
    expect(answer.result.content[0]!.text).toContain('42');
  });
});
