// A process killed with kill -9 while it holds an MCP server's question (#42): `stageloop run` at a terminal, paused
// on server-everything's elicitation and waiting at the prompt for a person, is killed. `stageloop resume` in a new
// process presents the same form (a pending decision of kind `elicitation`), `stageloop approve --answer` gives the
// server the answer once and the run finishes, and `stageloop replay` finds it identical.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply, startChatServer, type ChatRequestBody, type ChatServer } from '../support/chat-server.js';
import { everythingStdioServer } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';
import { killedAtPrompt } from '../support/terminal-cli.js';

const ASK = 'everything__trigger-elicitation-request';

/** Calls the asking tool, then answers with what it returned. */
function reply(body: ChatRequestBody) {
  const results = body.messages.filter((message) => message.role === 'tool');
  if (results.length > 0) return { content: `Result: ${String(results.at(-1)!.content).slice(0, 400)}` };
  return { toolCalls: [{ name: ASK, arguments: '{}' }] };
}

describe('kill -9 of a process holding an elicitation wait', () => {
  it('resume presents the same form; approve --answer gives the server the answer once; replay identical', async () => {
    const model: ChatServer = await startChatServer();
    model.handle((request, response) => sendReply(request, response, reply(request.body)), Number.MAX_SAFE_INTEGER);
    try {
      const folder = mkdtempSync(join(tmpdir(), 'stageloop-ask-kill-'));
      const { name, ...server } = everythingStdioServer();
      const config = join(folder, 'stageloop.config.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { [name]: server } }));
      const env = { OPENAI_API_KEY: 'sk-test', STAGELOOP_HOME: folder };
      const store = join(folder, 'runs.db');
      const common = ['--store', store];
      // --approve-tools makes the terminal a person who decides (the calculator is never called).
      const flags = ['--base-url', model.url, '--model', 'test-model', '--mcp-config', config];
      // The marker: the prompt asking a person about the server's question.
      const output = await killedAtPrompt(
        ['run', ...common, ...flags, '--approve-tools', 'calculator', `Please call ${ASK}`],
        'allow? [y]es',
        env,
      );
      const runId = /run ([0-9a-f]{32})/.exec(output)![1]!;

      const resumed = await runCli(['resume', runId, ...common, '--json'], env);
      expect(resumed.code).toBe(4);
      const waiting = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!) as {
        pending: Array<{ id: string; kind: string; server: string; requestedSchema: { required: string[] } }>;
      };
      expect(waiting.pending).toEqual([
        expect.objectContaining({
          id: expect.stringMatching(/\/elicitation-1$/),
          kind: 'elicitation',
          server: 'everything',
          message: 'Please provide inputs for the following fields:',
          requestedSchema: expect.objectContaining({ required: ['name'] }),
        }),
      ]);

      const done = await runCli(
        [
          'approve',
          runId,
          waiting.pending[0]!.id,
          ...common,
          '--answer',
          '{"name":"Ada Lovelace","check":true}',
          '--json',
        ],
        env,
      );
      expect(JSON.parse(done.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'completed' });
      // The server got the answer once: one accepted result reached the model.
      const toolMessages = model.requests
        .at(-1)!
        .body.messages.filter((message) => message.role === 'tool')
        .map((message) => String(message.content));
      expect(toolMessages).toHaveLength(1);
      expect(toolMessages[0]!.match(/User provided the requested information/g)).toHaveLength(1);
      expect(toolMessages[0]).toContain('"action": "accept"');
      expect(toolMessages[0]).toContain('Ada Lovelace');

      const replay = await runCli(['replay', runId, ...common], env);
      expect(replay.code).toBe(0);
      expect(replay.stdout).toMatch(/identical/);
    } finally {
      await model.close();
    }
  }, 240_000);
});
