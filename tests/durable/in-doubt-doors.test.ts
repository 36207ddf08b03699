// A call in doubt through the doors a person uses (issue 40): a `stageloop run` killed with kill -9 inside its MCP
// write (tests/durable/effects-mcp-server.ts writes its line, then never answers) is taken up by `stageloop serve`
// when it starts (its owner is gone), which holds the write as a decision of kind `in_doubt` instead of running it
// again: `POST /v1/runs/:id/decisions` rejects it with "it did run" (the model reads the message; the line is there
// once) or approves it (the write runs again, under the same idempotency key); the console's card rejects it the same way.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply, startChatServer, type ChatRequestBody } from '../support/chat-server.js';
import { repositoryRoot } from '../support/mcp-servers.js';
import { startCli } from '../support/run-cli.js';
import { jsonPost, useServes, waitFor, waitForStatus } from '../server/serve-support.js';
import { openBrowser, skipBrowser } from '../browser/browser-support.js';

const serves = useServes();

/** Calls the write once, then answers with what the tool said (so a test reads what the model was given). */
function reply(body: ChatRequestBody) {
  const toolMessage = body.messages.find((message) => message.role === 'tool');
  if (toolMessage === undefined)
    return { toolCalls: [{ name: 'ledger__append_line', arguments: JSON.stringify({ text: 'paid 10' }) }] };
  return { content: `The tool said: ${String(toolMessage.content)}` };
}

/** A killed run in doubt, on a store of its own: resolves once the write's line is in the file and its process is dead. */
async function killedInsideWrite() {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-doors-'));
  const file = join(folder, 'ledger.txt');
  const store = join(folder, 'runs.db');
  const model = await startChatServer();
  model.handle((request, response) => sendReply(request, response, reply(request.body)), Number.MAX_SAFE_INTEGER);
  const config = join(folder, 'mcp.json');
  const server = {
    command: process.execPath,
    args: ['--import', 'tsx', join(repositoryRoot, 'tests/durable/effects-mcp-server.ts')],
    cwd: repositoryRoot,
    env: { EFFECTS_FILE: '${LEDGER_FILE}', EFFECTS_INSIDE_TEXT: '${LEDGER_HOLD}' },
  };
  writeFileSync(config, JSON.stringify({ mcpServers: { ledger: server } }));
  const env = { OPENAI_API_KEY: 'sk-test', LEDGER_FILE: file, LEDGER_HOLD: '' };
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const args = ['run', '--store', store, '--base-url', model.url, '--model', 'test-model', '--mcp-config', config];
  const run = startCli([...args, 'Pay the bill'], { ...env, LEDGER_HOLD: '*' });
  await waitFor(async () => (lines().length > 0 ? true : undefined), 'the write', 120_000);
  run.child.kill('SIGKILL');
  const killed = await run.done;
  const runId = /run ([0-9a-f]{32})/.exec(killed.stderr)![1]!;
  return { runId, store, env, lines, model };
}

interface Pending {
  id: string;
  kind: string;
  tool: string;
}

/** The run view's pending decisions, wherever the view keeps them. */
function pendingOf(value: unknown): Pending[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap(pendingOf);
  const record = value as Record<string, unknown>;
  if (typeof record.kind === 'string' && typeof record.id === 'string' && typeof record.tool === 'string')
    return [record as unknown as Pending];
  return Object.values(record).flatMap(pendingOf);
}

describe('a call in doubt, decided through the server', () => {
  for (const approve of [false, true])
    it(`serve takes the dead run up, holds the write in doubt, and ${approve ? 'approve runs it again' : 'reject skips it: the model reads the message'}`, async () => {
      const killed = await killedInsideWrite();
      try {
        const serve = await serves.start(killed.env, { store: killed.store });
        const view = await waitForStatus(serve, killed.runId, ['interrupted']);
        const [held] = pendingOf(view);
        expect(held).toMatchObject({ kind: 'in_doubt', tool: 'ledger__append_line' });
        const callId = held!.id;
        const message = 'it did run; the result was paid 10 (receipt 7)';
        const decided = await serve.call(
          `/v1/runs/${killed.runId}/decisions`,
          jsonPost({ decisions: [approve ? { callId, approve: true } : { callId, approve: false, reason: message }] }),
        );
        expect(decided.status).toBe(202);
        const done = JSON.stringify(await waitForStatus(serve, killed.runId, ['completed', 'failed', 'stopped']));
        expect(done).toContain('"status":"completed"');
        const keys = killed.lines().map((line) => line.split('\t')[0]);
        // Twice only where a person approved the re-run, under the call's one key.
        expect(keys).toHaveLength(approve ? 2 : 1);
        expect(new Set(keys).size).toBe(1);
        expect(done).toContain(approve ? 'The tool said: appended paid 10' : message);
      } finally {
        await killed.model.close();
      }
    }, 180_000);
});

describe.skipIf(skipBrowser)('a call in doubt, decided in the console', () => {
  it('the card says the call may have run; reject with "it did run" and the model reads it', async () => {
    const killed = await killedInsideWrite();
    const browser = await openBrowser();
    try {
      const serve = await serves.start(killed.env, { store: killed.store });
      await waitForStatus(serve, killed.runId, ['interrupted']);
      const page = await browser.context.newPage();
      await page.goto(`${serve.running.url}/#/runs/${killed.runId}`);
      const card = page.locator('.pending-call').first();
      await card.waitFor({ timeout: 30_000 });
      expect(await card.locator('strong').textContent()).toBe('waiting for a decision: ledger__append_line');
      expect(await card.locator('.why').textContent()).toContain('cut off before its result was recorded');
      await card.locator('input.message').fill('it did run; the result was paid 10');
      await card.locator('button.reject').click();
      const done = JSON.stringify(await waitForStatus(serve, killed.runId, ['completed', 'failed', 'stopped']));
      expect(done).toContain('The person says: it did run; the result was paid 10');
      expect(killed.lines()).toHaveLength(1);
    } finally {
      await browser.close();
      await killed.model.close();
    }
  }, 180_000);
});
