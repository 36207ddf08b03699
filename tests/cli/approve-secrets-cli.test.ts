import { fileURLToPath } from 'node:url';
// Approving a paused run from a new shell needs no undocumented variable: a literal `env` value of the config file's
// MCP server (here the test server's MCP_TEST_LOG, which it needs to log its calls) is lent to the first process and
// never recorded; the recipe records the file and field, and `stageloop approve` reads it there again. Without the
// file, the error names the field, the variable and the doc. Real processes: the CLI, a stdio MCP server, SQLite.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { newLogFile, readLog, stdioTestServer } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';

const loopback = useLoopbackServer();
let folder = '';
let mcpLog = '';
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-approve-secrets-'));
  mcpLog = newLogFile();
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const env = () => ({ OPENAI_API_KEY: 'sk-test' });
const store = () => join(folder, 'runs.db');
const config = () => join(folder, 'stageloop.config.json');

/** A run whose model reads MCP content (taints it) and then calls the server's write tool: it pauses (exit 4). */
async function pausedRun(): Promise<string> {
  const { name, ...server } = stdioTestServer(mcpLog, 'notes', ['--with-write-tool']);
  writeFileSync(config(), JSON.stringify({ mcpServers: { [name]: server } }));
  loopback.server
    .replyWithToolCalls([{ id: 'call_read', name: 'notes__echo', arguments: JSON.stringify({ text: 'hello' }) }])
    .replyWithToolCalls([
      { id: 'call_send', name: 'notes__send_message', arguments: JSON.stringify({ to: 'a@b.example', text: 'hi' }) },
    ]);
  const args = ['run', '--base-url', loopback.server.url, '--model', 'test-model', '--store', store()];
  const paused = await runCli([...args, '--mcp-config', config(), '--json', 'Send the note'], env());
  expect(paused.code, paused.stderr).toBe(4);
  return (JSON.parse(paused.stdout) as { runId: string }).runId;
}

const sent = () => readLog(mcpLog).filter((entry) => entry.event === 'call' && entry.tool === 'send_message');

// The CLI names its docs by the path where they are installed: this repository's docs/ here.
const docsFolder = `${fileURLToPath(new URL('../../docs/', import.meta.url))}`;

describe('approving a run whose MCP server has a literal env value', { timeout: 120_000 }, () => {
  it('approve from a new shell reads the value from the config file again: the call runs once', async () => {
    const runId = await pausedRun();
    expect(sent()).toEqual([]);
    loopback.server.replyWith({ content: 'Sent.' });
    const approved = await runCli(['approve', runId, '--store', store(), '--json'], env());
    expect(approved.stderr).not.toMatch(/STAGELOOP_SECRET/);
    expect(approved.code, approved.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
  });

  it('with the config file gone, one line names the field, the variable that stands for it and the doc (exit 2)', async () => {
    const runId = await pausedRun();
    renameSync(config(), join(folder, 'moved.json'));
    const approved = await runCli(['approve', runId, '--store', store()], env());
    expect(approved.stderr).toBe(
      `stageloop: mcpServers.notes.env.MCP_TEST_LOG of ${config()} is a secret this run was started with, and it cannot be read there now (ENOENT: no such file or directory, open '${config()}'): restore the file, or export STAGELOOP_SECRET_MCPSERVERS_NOTES_ENV_MCP_TEST_LOG with that value (${docsFolder}mcp.md, "Secrets of a paused run")\n`,
    );
    expect(approved.code).toBe(2);
    expect(sent()).toEqual([]);
  });
});
