// MCP tasks on stageloop serve's /mcp: a tools/call that may become a task returns one at once and the task is the
// durable run. An MCP host starts a long run as a task (a web search held by the loopback SerpApi until the test lets
// it answer), disconnects, the server is killed with SIGKILL and started again on the same store, and the host reads
// the task's status and result: the restarted server continues the dead run when its task is asked for. On 2025-11-25
// the host is the SDK v1 client (`task` in the call's params, tasks/result); on 2026-07-28 a host speaking the tasks
// extension's wire (the request's capabilities name it, the server answers `resultType: "task"`, tasks/get polls
// until the result is inlined), over plain fetch since SDK v2's client has no tasks extension yet.
import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliPath } from '../support/run-cli.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { serpApiResults, startSerpApiServer } from '../support/serpapi-server.js';
import { loopbackModelEnv, waitFor } from '../server/serve-support.js';
import { modernRequest } from './mcp-modern-wire.js';

const loopback = useLoopbackServer();

/** `stageloop serve` as a process of its own on a free port; resolves with its URL once it listens. */
async function serveProcess(env: Record<string, string>, store: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--store', store], {
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
  });
  return { url, child };
}

async function connected(url: string): Promise<Client> {
  const client = new Client({ name: 'stageloop-task-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/**
 * The scene both eras share: a loopback model that searches the web for `city` and answers `answer`, a SerpApi whose
 * first search never answers (the server dies during it) and whose second does, and `stageloop serve` on a fresh store.
 * `host` drives one era; `restart` kills the server with SIGKILL and starts another on the same store.
 */
async function withDyingServer(
  city: string,
  answer: string,
  host: (scene: { url: string; searched: () => number; restart: () => Promise<string> }) => Promise<void>,
): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-mcp-task-'));
  const serpApi = await startSerpApiServer();
  const children: ChildProcess[] = [];
  try {
    serpApi.hang().reply(200, serpApiResults([{ title: city, link: 'https://example.org', snippet: answer }]));
    loopback.server.replyWithToolCalls([{ name: 'web_search', arguments: `{"query":"${city} weather"}` }]);
    loopback.server.replyWith({ content: answer });
    const env = {
      ...loopbackModelEnv(loopback.server.url),
      SERPAPI_API_KEY: 'test-key',
      SERPAPI_BASE_URL: serpApi.url,
    };
    const store = join(folder, 'runs.db');
    const first = await serveProcess(env, store);
    children.push(first.child);
    await host({
      url: first.url,
      searched: () => serpApi.requests.length,
      restart: async () => {
        first.child.kill('SIGKILL');
        await new Promise((resolve) => first.child.once('exit', resolve));
        const second = await serveProcess(env, store);
        children.push(second.child);
        return second.url;
      },
    });
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await serpApi.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

describe('MCP tasks on /mcp', () => {
  it('a task outlives its session and a kill -9 of the server: the host reads its result after the restart', async () => {
    await withDyingServer('Lisbon', 'It is 21 °C in Lisbon.', async ({ url, searched, restart }) => {
      const host = await connected(url);
      const created = await host.request(
        {
          method: 'tools/call',
          params: { name: 'react', arguments: { task: 'How warm is it in Lisbon?' }, task: { ttl: 600_000 } },
        },
        CreateTaskResultSchema,
      );
      expect(created.task.status).toBe('working');
      const taskId = created.task.taskId;
      await waitFor(async () => (searched() > 0 ? true : undefined), 'the web search to start', 60_000);
      expect((await host.experimental.tasks.getTask(taskId)).status).toBe('working');
      await host.close();
      const again = await connected(await restart());
      const listed = await again.experimental.tasks.listTasks();
      expect(listed.tasks.map((task) => task.taskId)).toContain(taskId);
      const result = await again.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
        timeout: 120_000,
      });
      expect(result.content).toEqual([{ type: 'text', text: 'It is 21 °C in Lisbon.' }]);
      expect(result._meta).toMatchObject({ 'stageloop/runId': taskId, 'stageloop/status': 'completed' });
      expect((await again.experimental.tasks.getTask(taskId)).status).toBe('completed');
      expect(searched()).toBe(2);
      await again.close();
    });
  }, 240_000);

  it('2026-07-28: the tasks extension’s task outlives a kill -9 of the server; tasks/get inlines the result', async () => {
    await withDyingServer('Oslo', 'It is 4 °C in Oslo.', async ({ url, searched, restart }) => {
      const discovered = await modernRequest(url, 'server/discover', {});
      expect(discovered.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
      const created = await modernRequest(url, 'tools/call', {
        name: 'react',
        arguments: { task: 'How cold is it in Oslo?' },
      });
      expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null });
      expect(created).not.toHaveProperty('result');
      const taskId = created.taskId as string;
      await waitFor(async () => (searched() > 0 ? true : undefined), 'the web search to start', 60_000);
      expect(await modernRequest(url, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
      const restarted = await restart();
      const done = await waitFor(
        async () => {
          const task = await modernRequest(restarted, 'tasks/get', { taskId });
          return task.status === 'completed' ? task : undefined;
        },
        'the continued run to complete',
        120_000,
      );
      expect(done.result.content).toEqual([{ type: 'text', text: 'It is 4 °C in Oslo.' }]);
      expect(done.result._meta).toMatchObject({ 'stageloop/runId': taskId, 'stageloop/status': 'completed' });
      expect(searched()).toBe(2);
    });
  }, 240_000);
});
