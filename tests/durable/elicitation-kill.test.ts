// A process killed with kill -9 while it holds an MCP server's question (#42): `stageloop run` at a terminal, paused
// on server-everything's elicitation and waiting at the prompt for a person, is killed. `stageloop resume` in a new
// process presents the same form (a pending decision of kind `elicitation`), `stageloop approve --answer` gives the
// server the answer once and the run finishes, and `stageloop replay` finds it identical.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply, startChatServer, type ChatRequestBody, type ChatServer } from '../support/chat-server.js';
import { everythingStdioServer } from '../support/mcp-servers.js';
import { cleanEnvironment, cliPath, runCli } from '../support/run-cli.js';

const ASK = 'everything__trigger-elicitation-request';

/** Calls the asking tool, then answers with what it returned. */
function reply(body: ChatRequestBody) {
  const results = body.messages.filter((message) => message.role === 'tool');
  if (results.length > 0) return { content: `Result: ${String(results.at(-1)!.content).slice(0, 400)}` };
  return { toolCalls: [{ name: ASK, arguments: '{}' }] };
}

// Runs the command under a pseudo-terminal (a person's prompt needs one), printing the command's pid, then its output.
const terminalScript = `
import os, pty, sys, json
pid, fd = pty.fork()
if pid == 0:
    args = json.loads(sys.argv[1]); os.execvp(args[0], args)
sys.stdout.write('PID %d\\n' % pid); sys.stdout.flush()
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    sys.stdout.write(chunk.decode(errors='replace')); sys.stdout.flush()
os.waitpid(pid, 0)
`;

/** Starts `stageloop run` at a terminal; resolves with its output once the person's prompt shows, after killing it. */
function killedAtThePrompt(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn('python3', ['-c', terminalScript, JSON.stringify([process.execPath, cliPath, ...args])], {
    env: cleanEnvironment(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let killed = false;
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () =>
      killed ? resolve(output) : reject(new Error(`the run ended before its prompt:\n${output}`)),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // The marker: the prompt asking a person about the server's question.
      if (!output.includes('allow? [y]es')) return;
      child.stdout.removeAllListeners('data');
      killed = true;
      process.kill(Number(/^PID (\d+)/.exec(output)![1]), 'SIGKILL');
    });
  });
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
      const output = await killedAtThePrompt(
        ['run', ...common, ...flags, '--approve-tools', 'calculator', `Please call ${ASK}`],
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
