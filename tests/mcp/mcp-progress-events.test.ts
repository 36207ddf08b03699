// A long MCP call's progress as run events, against server-everything's trigger-long-running-operation as a child
// process: each `notifications/progress` is a `tool_progress` event of the run (the call's id, the tool, the server,
// progress of total) before the call's `tool_result`, streamed as SSE blocks (toServerSentEvents), and a progress line
// of `stageloop run` on stderr (live only: the run replays identically).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { streamRun } from '../../src/stream/stream-run.js';
import { toServerSentEvents } from '../../src/stream/server-sent-events.js';
import { McpServerPool, loadMcpTools } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ChatRequestBody } from '../support/chat-server.js';
import type { ReplyOptions } from '../support/chat-bodies.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { everythingStdioServer } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';
import { scriptedCliSuite } from '../support/scripted-cli-suite.js';

// Each test starts server-everything as a child process and waits for its steps: generous on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });
const loopback = useLoopbackServer({ timeoutMs: 30_000 });
const pool = new McpServerPool();
afterEach(() => pool.closeAll());

const LONG = 'everything__trigger-long-running-operation';
// Four steps of a quarter second: the first three notifications always come before the result.
const LONG_ARGUMENTS = '{"duration":1,"steps":4}';

/** Calls the long tool, then answers with its result. */
function reply(body: ChatRequestBody): ReplyOptions {
  const results = body.messages.filter((message) => message.role === 'tool');
  if (results.length > 0) return { content: `Result: ${String(results.at(-1)!.content)}` };
  return { toolCalls: [{ name: LONG, arguments: LONG_ARGUMENTS }] };
}
const suite = scriptedCliSuite(reply, 'mcp-progress');

interface Block {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

describe('MCP progress as run events', () => {
  it('each progress notification is a tool_progress event before the result, streamed as SSE', async () => {
    loopback.server
      .replyWithToolCalls([{ name: LONG, arguments: LONG_ARGUMENTS, id: 'call_1' }])
      .replyWith({ content: 'Done.' });
    const tools = new ToolRegistry(await loadMcpTools([everythingStdioServer()], { pool }));
    const stream = streamRun(
      reactPipeline(),
      { task: 'Run the long operation.' },
      { deps: { model: loopback.model(), tools } },
    );
    const text = await new Response(toServerSentEvents(stream)).text();
    expect((await stream.result).status).toBe('completed');
    const blocks: Block[] = text
      .split('\n\n')
      .filter((block) => block.includes('event: '))
      .map((block) => {
        const event = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Block;
        expect(block).toContain(`id: ${event.seq}\nevent: ${event.type}\n`);
        return event;
      });
    const progress = blocks.filter((block) => block.type === 'tool_progress');
    expect(progress.slice(0, 3).map((block) => block.data)).toEqual(
      [1, 2, 3].map((step) => ({ id: 'call_1', name: LONG, server: 'everything', progress: step, total: 4 })),
    );
    expect(progress[0]).toMatchObject({ stage: 'act', iteration: 1 });
    const result = blocks.find((block) => block.type === 'tool_result')!;
    expect(result.data).toMatchObject({ id: 'call_1', ok: true });
    expect(progress.every((block) => block.seq < result.seq)).toBe(true);
  });

  it('stageloop run prints a progress line per notification before the result', async () => {
    const { name, ...server } = everythingStdioServer();
    const config = join(suite.folder, 'stageloop.config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { [name]: server } }));
    const env = { OPENAI_API_KEY: 'sk-test', STAGELOOP_HOME: suite.folder };
    const run = await runCli(
      [
        'run',
        '--base-url',
        suite.model.url,
        '--model',
        'test-model',
        '--mcp-config',
        config,
        'Run the long operation.',
      ],
      env,
    );
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').map((line) => line.trim());
    const first = lines.indexOf(`… ${LONG}: 1 of 4`);
    expect(first).toBeGreaterThan(lines.findIndex((line) => line.startsWith(`→ ${LONG}`)));
    expect(lines.indexOf(`… ${LONG}: 3 of 4`)).toBeGreaterThan(first);
    expect(lines.findIndex((line) => line.startsWith(`← ${LONG}: Long running operation completed`))).toBeGreaterThan(
      first,
    );
    // Progress is live only: the replay, served the recorded result, is identical without it.
    const runId = /run ([0-9a-f]{32})/.exec(run.stderr)![1]!;
    const replay = await runCli(['replay', runId], env);
    expect(replay.stdout).toMatch(/^identical/);
  });
});
