// An MCP server's question in the console, in headless Chromium: a `stageloop run` paused on server-everything's
// elicitation (exit 4) is opened in `stageloop serve`'s console on the same store; the card shows the server's message
// and its form's fields to fill in, an answer that does not fill the form is refused with the server's fields named
// (the card stays), and a right one resumes the run (the server is started again from the recipe) to its answer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply, startChatServer, type ChatRequestBody } from '../support/chat-server.js';
import { everythingStdioServer } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';
import { useServes, waitForStatus } from '../server/serve-support.js';
import { artifacts, openBrowser, skipBrowser } from './browser-support.js';

const serves = useServes();
const ASK = 'everything__trigger-elicitation-request';

/** Calls the asking tool, then answers with what it returned. */
function reply(body: ChatRequestBody) {
  const results = body.messages.filter((message) => message.role === 'tool');
  if (results.length > 0) return { content: `Result: ${String(results.at(-1)!.content).slice(0, 400)}` };
  return { toolCalls: [{ name: ASK, arguments: '{}' }] };
}

describe.skipIf(skipBrowser)("an MCP server's question in the console", () => {
  it("shows the server's fields, refuses a wrong answer with the message, and a right one resumes the run", async () => {
    const model = await startChatServer();
    model.handle((request, response) => sendReply(request, response, reply(request.body)), Number.MAX_SAFE_INTEGER);
    const browser = await openBrowser();
    try {
      const folder = mkdtempSync(join(tmpdir(), 'stageloop-console-ask-'));
      const { name, ...server } = everythingStdioServer();
      const config = join(folder, 'stageloop.config.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { [name]: server } }));
      const env = { OPENAI_API_KEY: 'sk-test', STAGELOOP_HOME: folder };
      const store = join(folder, 'runs.db');
      const args = ['--store', store, '--base-url', model.url, '--model', 'test-model', '--mcp-config', config];
      const paused = await runCli(['run', ...args, '--json', `Please call ${ASK}`], env);
      expect(paused.code).toBe(4);
      const { runId } = JSON.parse(paused.stdout.trim().split('\n').at(-1)!) as { runId: string };

      const serve = await serves.start(env, { store });
      await waitForStatus(serve, runId, ['interrupted']);
      const page = await browser.context.newPage();
      await page.goto(`${serve.running.url}/#/runs/${runId}`);
      const card = page.locator('.pending-call').first();
      await card.waitFor({ timeout: 30_000 });
      expect(await card.locator('strong').textContent()).toBe(`waiting for a decision: ${ASK}`);
      expect(await card.locator('.why').textContent()).toContain(
        'the MCP server "everything" asks during everything__trigger-elicitation-request: Please provide inputs',
      );
      // The box holds the server's form as JSON to fill in: its fields, each with its default or an empty value.
      const form = JSON.parse(await card.locator('textarea.arguments').inputValue()) as Record<string, unknown>;
      expect(Object.keys(form)).toEqual(expect.arrayContaining(['name', 'check', 'integer']));
      expect(form.name).toBe('');
      await page.screenshot({ path: join(artifacts, 'elicitation-pending.png'), fullPage: true });

      await card.locator('textarea.arguments').fill('{ "integer": 500 }');
      await card.locator('button.approve').click();
      await expect
        .poll(() => page.locator('#error').textContent(), { timeout: 15_000 })
        .toMatch(/does not fill the server's form .*fields are name, check/);
      expect((await waitForStatus(serve, runId, ['interrupted'])).run.status).toBe('interrupted');
      expect(await page.locator('.pending-call').count()).toBe(1);

      await card.locator('textarea.arguments').fill('{ "name": "Ada Lovelace", "check": true }');
      await card.locator('button.approve').click();
      await page.locator('[data-status="completed"]').waitFor({ timeout: 60_000 });
      await expect.poll(() => page.locator('pre.answer').textContent()).toContain('Ada Lovelace');
      await page.screenshot({ path: join(artifacts, 'elicitation-answered.png'), fullPage: true });
      expect(JSON.stringify(await waitForStatus(serve, runId, ['completed']))).toContain('User provided the requested');
    } finally {
      await browser.close();
      await model.close();
    }
  }, 180_000);
});
