// The MCP SDK's client against stageloop as an MCP server: `stageloop mcp` over stdio (a child process, the compiled
// CLI) and /mcp on a real serve over Streamable HTTP. List tools, call one, follow progress, cancel a call.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { cliPath, runCli } from '../support/run-cli.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { loopbackModelEnv, useServes, waitFor, waitForStatus } from '../server/serve-support.js';

const serves = useServes();
const loopback = useLoopbackServer();

type TextContent = Array<{ type: string; text?: string }>;
const textOf = (content: unknown) => (content as TextContent).map((part) => part.text ?? '').join('');

/** `stageloop mcp` with nothing in its environment but PATH and STAGELOOP_HOME (plus what a test adds). */
async function stdioClient(
  extra: Record<string, string> = {},
): Promise<{ client: Client; home: string; stderr: () => string; close(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'stageloop-mcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp'],
    env: { PATH: process.env.PATH!, STAGELOOP_HOME: home, ...extra },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    home,
    stderr: () => stderr,
    async close() {
      await client.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

describe('stageloop mcp (stdio)', () => {
  it("lists one tool per pipeline, answers a call with the run's answer and reports progress; the run is recorded", async () => {
    const mcp = await stdioClient();
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['plan-execute-replan', 'react']);
      expect(tools[0]!.inputSchema).toMatchObject({
        type: 'object',
        properties: { task: { type: 'string' } },
        required: ['task'],
      });
      const progress: Progress[] = [];
      const result = await mcp.client.callTool(
        { name: 'react', arguments: { task: 'What is 17 * 23 + 4?' } },
        undefined,
        { onprogress: (update) => progress.push(update) },
      );
      expect(result.isError).toBe(false);
      expect(textOf(result.content)).toContain('395');
      // The SDK client runs notification handlers a microtask late and drops the progress handler at the response, so
      // a notification that arrives with the result (here "calculator returned ...") may be lost: only earlier ones are sure.
      expect(progress[0]!.message).toMatch(/^Calling calculator\(\{"expression":"17 \* 23 \+ 4"\}\)/);
      expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
      const runId = (result._meta as Record<string, string>)['stageloop/runId']!;
      const listed = await runCli(['runs', '--json'], { STAGELOOP_HOME: mcp.home });
      expect(JSON.parse(listed.stdout)).toEqual(
        expect.arrayContaining([expect.objectContaining({ runId, status: 'completed' })]),
      );
      // An ordinary recorded run: show has its timeline, replay runs it again offline to the same state.
      const shown = await runCli(['show', runId], { STAGELOOP_HOME: mcp.home });
      expect(shown.stdout).toContain('calculator');
      const replayed = await runCli(['replay', runId], { STAGELOOP_HOME: mcp.home });
      expect(replayed.stdout).toContain('identical');
      expect(mcp.stderr()).toContain('stageloop mcp: using the offline model');
    } finally {
      await mcp.close();
    }
  });

  it('an empty task is a tool error, not a broken connection', async () => {
    const mcp = await stdioClient();
    try {
      const empty = await mcp.client.callTool({ name: 'react', arguments: { task: '' } });
      expect(empty.isError).toBe(true);
      const after = await mcp.client.callTool({ name: 'plan-execute-replan', arguments: { task: 'What is 12 * 12?' } });
      expect(textOf(after.content)).toContain('144');
    } finally {
      await mcp.close();
    }
  });

  it("the client's cancel cancels the run", async () => {
    loopback.server.hang();
    const mcp = await stdioClient(loopbackModelEnv(loopback.server.url));
    try {
      const controller = new AbortController();
      const call = mcp.client
        .callTool({ name: 'react', arguments: { task: 'think for a long time' } }, undefined, {
          signal: controller.signal,
        })
        .catch((error: unknown) => error);
      await waitFor(async () => (loopback.server.requests.length > 0 ? true : undefined), 'the model request');
      controller.abort('the person pressed stop');
      expect(await call).toBeInstanceOf(Error);
      await waitFor(
        async () => {
          const listed = await runCli(['runs', '--json'], { STAGELOOP_HOME: mcp.home });
          const runs = JSON.parse(listed.stdout) as Array<{ status: string }>;
          return runs[0]?.status === 'cancelled' ? true : undefined;
        },
        'the run to be cancelled',
        30_000,
      );
    } finally {
      await mcp.close();
    }
  });
});

describe('/mcp on stageloop serve (Streamable HTTP)', () => {
  it('lists the tools, calls one with progress, and cancels a call', async () => {
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.running.url}/mcp`)));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('plan-execute-replan');
      loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
      loopback.server.replyWith({ content: 'It is 42.' });
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'react', arguments: { task: 'six times seven?' } }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      expect(textOf(result.content)).toBe('It is 42.');
      expect(progress.some((update) => update.message === 'Calling calculator({"expression":"6*7"})')).toBe(true);
      const runId = (result._meta as Record<string, string>)['stageloop/runId']!;
      await waitForStatus(serve, runId, ['completed']);

      loopback.server.hang();
      const controller = new AbortController();
      const call = client
        .callTool({ name: 'react', arguments: { task: 'a long one' } }, undefined, { signal: controller.signal })
        .catch((error: unknown) => error);
      await waitFor(async () => (loopback.server.requests.length > 2 ? true : undefined), 'the model request');
      controller.abort('stop');
      expect(await call).toBeInstanceOf(Error);
      await waitFor(async () => {
        const { runs } = (await (await serve.call('/v1/runs')).json()) as { runs: Array<{ status: string }> };
        return runs[0]?.status === 'cancelled' ? true : undefined;
      }, 'the run to be cancelled');
    } finally {
      await client.close();
    }
  });
});
