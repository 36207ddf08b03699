// The console as a place to decide, in headless Chromium: a run started from the form with "ask before: calculator"
// pauses; the card shows the call's tool, id, reason and arguments; one run is approved with edited arguments, one
// rejected with a message, and `stageloop show` has both decisions. The waterfall draws the wait as waiting.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';
import { useServes, type TestServe } from '../server/serve-support.js';
import { artifacts, openBrowser, skipBrowser } from './browser-support.js';
import type { Page } from 'playwright-core';

const serves = useServes();

async function showText(serve: TestServe, runId: string): Promise<string> {
  let text = '';
  const sink = { write: (chunk: string) => ((text += chunk), true) } as NodeJS.WritableStream;
  expect(await main(['show', runId, '--store', serve.storeFile], { stdout: sink, stderr: sink, env: {} })).toBe(0);
  return text;
}

/** Starts a run from the console's form with approvals for the calculator; resolves with its id once it waits. */
async function startPausedRun(page: Page, task: string): Promise<string> {
  await page.locator('#pipeline option[value="react"]').waitFor({ state: 'attached' });
  await page.fill('#task', task);
  await page.fill('#approve-tools', 'calculator');
  await page.click('#start button[type=submit]');
  await page.locator('.pending-call').waitFor({ timeout: 15_000 });
  return decodeURIComponent(/#\/runs\/(.+)$/.exec(page.url())![1]!);
}

/** A fresh server and browser page whose run, started from the console's form, waits for a decision on `task`. */
async function withPausedRun(
  task: string,
  body: (page: Page, serve: TestServe, runId: string) => Promise<void>,
): Promise<void> {
  const serve = await serves.start({});
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${serve.running.url}/`);
    await body(page, serve, await startPausedRun(page, task));
  } finally {
    await browser.close();
  }
}

describe.skipIf(skipBrowser)('deciding an approval in the console', () => {
  it('shows the pending call, approves it with edited arguments, and the waterfall draws the wait', async () => {
    await withPausedRun('What is 6 * 7?', async (page, serve, runId) => {
      const card = page.locator('.pending-call').first();
      expect(await card.locator('strong').textContent()).toBe('waiting for a decision: calculator');
      expect(await card.locator('.call-id').textContent()).toMatch(/^call \S+/);
      expect(await card.locator('.why').textContent()).toContain('approval of every calculator call');
      expect(JSON.parse(await card.locator('textarea.arguments').inputValue())).toEqual({ expression: '6 * 7' });
      await page.screenshot({ path: join(artifacts, 'approval-pending.png'), fullPage: true });
      await card.locator('textarea.arguments').fill('{ "expression": "6 * 8" }');
      await card.locator('button.approve').click();
      await page.locator('[data-status="completed"]').waitFor({ timeout: 15_000 });
      await expect.poll(() => page.locator('pre.answer').textContent()).toContain('48');
      expect(await page.locator('.waterfall .bar.waiting').count()).toBe(1);
      expect(await page.locator('.waterfall .label').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringMatching(/^waiting for a decision · /)]),
      );
      // A normal end of the loop is drawn as an end, not as an error.
      expect(await page.locator('.waterfall .bar.ended').count()).toBeGreaterThan(0);
      expect(await page.locator('.waterfall .bar.steer').count()).toBe(0);
      await page.screenshot({ path: join(artifacts, 'approval-edited-done.png'), fullPage: true });
      const shown = await showText(serve, runId);
      expect(shown).toMatch(/decision · approved call \S+ with edited arguments \{ "expression": "6 \* 8" \}/);
    });
  }, 90_000);

  it('rejects a call with a message the model reads, and show has the message', async () => {
    await withPausedRun('What is 9 * 9?', async (page, serve, runId) => {
      const card = page.locator('.pending-call').first();
      await card.locator('input.message').fill('no calculator today');
      await card.locator('button.reject').click();
      await page.locator('.pending-call').waitFor({ state: 'detached', timeout: 15_000 });
      await expect
        .poll(async () => page.locator('[data-status]').getAttribute('data-status'), { timeout: 15_000 })
        .not.toMatch(/running|interrupted/);
      await page.screenshot({ path: join(artifacts, 'approval-rejected.png'), fullPage: true });
      const shown = await showText(serve, runId);
      expect(shown).toMatch(/decision · rejected call \S+: "no calculator today"/);
    });
  }, 90_000);
  it("an agent's pause: each card names the agent that asks; approving both finishes the coordinator", async () => {
    const serve = await serves.start({});
    let output = '';
    const sink = { write: (chunk: string) => ((output += chunk), true) } as NodeJS.WritableStream;
    const config = join(process.cwd(), 'examples', 'agents', 'stageloop.config.json');
    const args = [
      'run',
      '--agent',
      'coordinator',
      '--offline',
      '--approve-tools',
      'calculator',
      '--json',
      '--store',
      serve.storeFile,
      '--mcp-config',
      config,
      'Compute 12 * 7; compute 100 - 58',
    ];
    expect(
      await main(args, { stdout: sink, stderr: { write: () => true } as unknown as NodeJS.WritableStream, env: {} }),
    ).toBe(4);
    const { runId } = JSON.parse(output) as { runId: string };
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(`${serve.running.url}/#/runs/${encodeURIComponent(runId)}`);
      await page.locator('.pending-call').first().waitFor({ timeout: 15_000 });
      expect(await page.locator('.pending-call .agent').allTextContents()).toEqual([
        'asked by agent coordinator/multiplier',
        'asked by agent coordinator/subtractor',
      ]);
      expect(await page.locator('.pending-call').first().getAttribute('data-call')).toMatch(/^\S+\/\S+$/);
      await page.screenshot({ path: join(artifacts, 'approval-agents.png'), fullPage: true });
      await page.locator('.pending-call button.approve').first().click();
      // The other agent still waits: the run pauses again with one card.
      await expect
        .poll(() => page.locator('.pending-call .agent').allTextContents(), { timeout: 15_000 })
        .toEqual(['asked by agent coordinator/subtractor']);
      await page.locator('.pending-call button.approve').first().click();
      await page.locator('[data-status="completed"]').waitFor({ timeout: 15_000 });
      await expect.poll(() => page.locator('pre.answer').first().textContent()).toContain('12 * 7 = 84; 100 - 58 = 42');
      // The agents' runs are inline and folded; each opens to its own answer and waterfall.
      const children = page.locator('details.child-run');
      await expect.poll(() => children.count(), { timeout: 15_000 }).toBe(2);
      expect(await children.locator(':scope > summary').allTextContents()).toEqual([
        expect.stringMatching(/^agent coordinator\/multiplier · call \S+ · completed$/),
        expect.stringMatching(/^agent coordinator\/subtractor · call \S+ · completed$/),
      ]);
      expect(await children.first().locator('.waterfall').isVisible()).toBe(false);
      await children.first().locator(':scope > summary').click();
      expect(await children.first().locator('pre.answer').textContent()).toBe('12 * 7 = 84');
      expect(await children.first().locator('.waterfall .label').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringMatching(/^think · /), expect.stringMatching(/^tool · calculator/)]),
      );
      await page.screenshot({ path: join(artifacts, 'agents-inline.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 90_000);
});
