// MCP client requests through the CLI, with server-everything as a child process of each command: its question pauses
// the run (exit 4, a pending decision of kind `elicitation` with the form); `stageloop approve RUN ID --answer JSON`
// refuses an answer that does not fill the form in one line, resumes with one that does (a new process: the server is
// started again from the recipe), and `stageloop replay` finds the run identical. A server's `approveTools` are
// exceptions to --approve-all-tools; --mcp-timeout is recorded for servers whose config sets none.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatRequestBody } from '../support/chat-server.js';
import { scriptedCliSuite } from '../support/scripted-cli-suite.js';
import type { ReplyOptions } from '../support/chat-bodies.js';
import { everythingStdioServer } from '../support/mcp-servers.js';
import { runCli, type CliRun } from '../support/run-cli.js';

/** Calls the tool the task names, then answers with the start of its result. */
function reply(body: ChatRequestBody): ReplyOptions {
  const task = String(body.messages.find((message) => message.role === 'user')?.content ?? '');
  const results = body.messages.filter((message) => message.role === 'tool');
  if (results.length > 0) return { content: `Result: ${String(results.at(-1)!.content).slice(0, 300)}` };
  const tool = /call (\S+)/.exec(task)![1]!;
  return { toolCalls: [{ name: tool, arguments: tool.endsWith('get-sum') ? '{"a":2,"b":3}' : '{}' }] };
}

const suite = scriptedCliSuite(reply, 'mcp-gate');

function config(settings: object = {}): string {
  const { name, ...server } = everythingStdioServer();
  const file = join(suite.folder, 'stageloop.config.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { ...server, ...settings } } }));
  return file;
}

const env = () => ({ OPENAI_API_KEY: 'sk-test', STAGELOOP_HOME: suite.folder });
const run = (args: string[], task: string) =>
  runCli(['run', '--json', '--base-url', suite.model.url, '--model', 'test-model', ...args, task], env());

interface Result {
  runId: string;
  status: string;
  answer: string | null;
  pending?: Array<Record<string, unknown> & { id: string }>;
}
function resultOf(cli: CliRun): Result {
  try {
    return JSON.parse(cli.stdout.trim().split('\n').at(-1)!) as Result;
  } catch {
    throw new Error(`exit ${cli.code}: ${cli.stdout}${cli.stderr}`);
  }
}

describe('MCP client requests through the CLI', () => {
  it('elicitation: pauses with the form, a wrong answer is one line, the right one resumes, replay identical', async () => {
    const paused = await run(['--mcp-config', config()], 'Please call everything__trigger-elicitation-request');
    expect(paused.code).toBe(4);
    expect(paused.stderr).toMatch(
      /call_\w+\/elicitation-1 {2}the MCP server "everything" asks: Please provide inputs .*\(fields: name\*, check,/,
    );
    expect(paused.stderr).toContain(`--answer '{"FIELD": "VALUE"}'`);
    const waiting = resultOf(paused);
    const [pending] = waiting.pending!;
    expect(pending).toMatchObject({
      id: expect.stringMatching(/\/elicitation-1$/),
      kind: 'elicitation',
      server: 'everything',
      requestedSchema: { required: ['name'] },
    });

    const wrong = await runCli(['approve', waiting.runId, pending!.id, '--answer', '{"integer":500}'], env());
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/does not fill the server's form .*fields are name, check/),
    ]);

    const done = await runCli(
      ['approve', waiting.runId, pending!.id, '--answer', '{"name":"Ada Lovelace","check":true}', '--json'],
      env(),
    );
    expect(resultOf(done)).toMatchObject({ status: 'completed', answer: expect.stringContaining('Ada Lovelace') });

    const replay = await runCli(['replay', waiting.runId], env());
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/identical/);
  }, 180_000);

  it('reject --cancel cancels the form: the server hears it', async () => {
    const paused = await run(['--mcp-config', config()], 'Please call everything__trigger-elicitation-request');
    const waiting = resultOf(paused);
    const done = await runCli(['reject', waiting.runId, waiting.pending![0]!.id, '--cancel', '--json'], env());
    expect(resultOf(done)).toMatchObject({ status: 'completed', answer: expect.stringContaining('cancelled') });
  }, 180_000);

  it("a server's approveTools run under --approve-all-tools without a pause; its other tools wait", async () => {
    const file = config({ autoApprove: ['get-sum'] });
    const free = await run(['--mcp-config', file, '--approve-all-tools'], 'Please call everything__get-sum');
    expect(resultOf(free)).toMatchObject({ status: 'completed', answer: expect.stringContaining('5') });
    const held = await run(['--mcp-config', file, '--approve-all-tools'], 'Please call everything__get-env');
    expect(held.code).toBe(4);
    expect(resultOf(held).pending).toEqual([expect.objectContaining({ kind: 'tool_approval' })]);
  }, 180_000);

  it('--mcp-timeout is recorded with each server whose config sets no timeout; a bad value is one line', async () => {
    const bad = await run(['--mcp-config', config(), '--mcp-timeout', 'soon'], 'Please call everything__get-sum');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(
      /^.*--mcp-timeout takes a number of seconds above 0, like --mcp-timeout 120; got "soon"$/,
    );
    const done = await run(['--mcp-config', config(), '--mcp-timeout', '90'], 'Please call everything__get-sum');
    const shown = await runCli(['show', resultOf(done).runId, '--json'], env());
    expect(shown.stdout).toContain('"timeout":90');
  }, 180_000);
});
