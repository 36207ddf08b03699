// MCP tasks on stageloop serve's /mcp: a tools/call with `task` returns at once and the task is the durable run. An MCP
// host (the SDK client) starts a long run as a task (a web search held by the loopback SerpApi until the test lets it
// answer), disconnects, the server is killed with SIGKILL and started again on the same store, and the host (a new
// session) reads the task's status and result: the restarted server continues the dead run when its task is asked for.
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

describe('MCP tasks on /mcp', () => {
  it('a task outlives its session and a kill -9 of the server: the host reads its result after the restart', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-mcp-task-'));
    const serpApi = await startSerpApiServer();
    const children: ChildProcess[] = [];
    try {
      // The first search never answers (the server dies during it); the one after the restart does.
      serpApi.hang().reply(200, serpApiResults([{ title: 'Lisbon', link: 'https://example.org', snippet: '21 °C' }]));
      loopback.server.replyWithToolCalls([{ name: 'web_search', arguments: '{"query":"Lisbon weather"}' }]);
      loopback.server.replyWith({ content: 'It is 21 °C in Lisbon.' });
      const env = {
        ...loopbackModelEnv(loopback.server.url),
        SERPAPI_API_KEY: 'test-key',
        SERPAPI_BASE_URL: serpApi.url,
      };
      const store = join(folder, 'runs.db');
      const first = await serveProcess(env, store);
      children.push(first.child);
      const host = await connected(first.url);
      const created = await host.request(
        {
          method: 'tools/call',
          params: { name: 'react', arguments: { task: 'How warm is it in Lisbon?' }, task: { ttl: 600_000 } },
        },
        CreateTaskResultSchema,
      );
      expect(created.task.status).toBe('working');
      const taskId = created.task.taskId;
      await waitFor(async () => (serpApi.requests.length > 0 ? true : undefined), 'the web search to start', 60_000);
      expect((await host.experimental.tasks.getTask(taskId)).status).toBe('working');
      await host.close();
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));

      const second = await serveProcess(env, store);
      children.push(second.child);
      const again = await connected(second.url);
      const listed = await again.experimental.tasks.listTasks();
      expect(listed.tasks.map((task) => task.taskId)).toContain(taskId);
      const result = await again.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
        timeout: 120_000,
      });
      expect(result.content).toEqual([{ type: 'text', text: 'It is 21 °C in Lisbon.' }]);
      expect(result._meta).toMatchObject({ 'stageloop/runId': taskId, 'stageloop/status': 'completed' });
      expect((await again.experimental.tasks.getTask(taskId)).status).toBe('completed');
      expect(serpApi.requests).toHaveLength(2);
      await again.close();
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await serpApi.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 240_000);
});
