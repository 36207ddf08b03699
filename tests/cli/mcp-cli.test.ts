import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { newLogFile, readLog, stdioTestServer } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';

let folder: string | undefined;
afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

/** A config file in the shape Claude Desktop uses, naming the SDK test server over stdio. */
function configWithTestServer(logFile: string): string {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-mcp-cli-'));
  const server = stdioTestServer(logFile, 'files') as {
    command: string;
    args?: string[];
    env?: Record<string, string>;
  };
  const file = join(folder, 'stageloop.config.json');
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { files: { command: server.command, args: server.args, env: server.env } } }),
  );
  return file;
}

describe('MCP servers and fallback models on the command line', () => {
  const loopback = useLoopbackServer();

  it('stageloop tools lists the built-in tools and each MCP tool with its server', async () => {
    const config = configWithTestServer(newLogFile());
    const listed = await runCli(['tools', '--json', '--mcp-config', config]);
    expect(listed.code).toBe(0);
    const tools = JSON.parse(listed.stdout) as Array<{ name: string; origin: { kind: string; server?: string } }>;
    expect(tools.find((tool) => tool.name === 'calculator')?.origin.kind).toBe('built-in');
    expect(tools.find((tool) => tool.name === 'files__echo')?.origin).toMatchObject({ kind: 'mcp', server: 'files' });
  });

  it('a run offers the MCP tools to the model and calls them on the server', async () => {
    const log = newLogFile();
    const config = configWithTestServer(log);
    loopback.server.replyWithToolCalls([
      { name: 'files__echo', arguments: JSON.stringify({ text: 'hello from the server' }) },
    ]);
    loopback.server.replyWith({ content: 'It said hello.' });
    const run = await runCli(['run', '--mcp-config', config, 'Echo hello'], {
      OPENAI_BASE_URL: loopback.server.url,
      OPENAI_MODEL: 'test-model',
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('It said hello.');
    expect(loopback.server.requests[0]!.body.tools?.map((tool) => tool.function.name)).toContain('files__echo');
    expect(readLog(log).some((entry) => entry.event === 'call' && entry.tool === 'echo')).toBe(true);
  });

  it('--fallback-model moves to another model on the same server when the first is rate limited', async () => {
    loopback.server.fail(429, { times: 3, headers: { 'retry-after': '0' } });
    loopback.server.replyWith({ content: 'Answered by the second model.' });
    const run = await runCli(['run', '--no-store', '--fallback-model', 'second-model', 'Say something'], {
      OPENAI_BASE_URL: loopback.server.url,
      OPENAI_MODEL: 'first-model',
    });
    expect(run.stdout.trim()).toBe('Answered by the second model.');
    expect(run.stderr).toContain('falling back to second-model');
    expect(loopback.server.requests.at(-1)!.body.model).toBe('second-model');
  });

  it('a bad --mcp value is one line, exit 2', async () => {
    const run = await runCli(['run', '--mcp', 'no-equals-sign', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('stageloop mcp login: an unknown server, a server run as a command, no name: one line each, exit 2', async () => {
    const config = configWithTestServer(newLogFile());
    const unknown = await runCli(['mcp', 'login', 'nope', '--mcp-config', config]);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([
      2,
      expect.stringMatching(/no MCP server named "nope".*files/),
    ]);
    const command = await runCli(['mcp', 'login', 'files', '--mcp-config', config]);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/runs as a command: only servers with a "url" log in/);
    const nameless = await runCli(['mcp', 'logout']);
    expect([nameless.code, nameless.stderr.trim().split('\n')]).toEqual([
      2,
      [expect.stringMatching(/one server name/)],
    ]);
  });
});
