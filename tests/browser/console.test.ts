// The console in headless Chromium: start a run from the form, watch it complete, open its waterfall; and the
// self-contained page of `stageloop show --html` opened from a file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, loopbackModelEnv, useServes } from '../server/serve-support.js';
import { artifacts, openBrowser, skipBrowser } from './browser-support.js';

const loopback = useLoopbackServer();
const serves = useServes();

describe.skipIf(skipBrowser)('the web console', () => {
  it('starts a run from the form, shows it completing with its answer and waterfall, then lists it', async () => {
    loopback.server.replyWith({ content: 'Seven, and here is why.', usage: { input: 20, output: 6 } });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(`${serve.running.url}/`);
      await page.locator('#pipeline option[value="react"]').waitFor({ state: 'attached' });
      await page.fill('#task', 'what is 3 + 4?');
      await page.click('#start button[type=submit]');
      await page.locator('[data-status="completed"]').waitFor({ timeout: 15_000 });
      await expect.poll(() => page.locator('pre.answer').textContent()).toBe('Seven, and here is why.');
      expect(await page.locator('.waterfall .label').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringMatching(/^think · /)]),
      );
      expect(await page.locator('.waterfall .bar.model').count()).toBeGreaterThan(0);
      expect(await page.locator('.stop').textContent()).toMatch(/^stop: /);
      await page.screenshot({ path: join(artifacts, 'run-page.png'), fullPage: true });
      await page.setViewportSize({ width: 380, height: 800 });
      await page.screenshot({ path: join(artifacts, 'run-page-narrow.png'), fullPage: true });
      await page.click('text=← all runs');
      await page.locator('tr.run-row').first().waitFor();
      expect(await page.locator('tr.run-row').first().textContent()).toContain('what is 3 + 4?');
      await page.screenshot({ path: join(artifacts, 'run-list.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("the run list follows runs started elsewhere through the server's feed, with no polling", async () => {
    loopback.server.replyWith({ content: 'From the feed.' });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      const feedOpened = page.waitForRequest(
        (request) => request.url().endsWith('/v1/runs') && request.headers().accept === 'text/event-stream',
      );
      await page.goto(`${serve.running.url}/`);
      await feedOpened;
      const listReads = () =>
        page.evaluate(
          () =>
            performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/v1/runs?limit')).length,
        );
      await expect.poll(listReads).toBe(1);
      const { runId } = (await (
        await serve.call('/v1/runs', jsonPost({ task: 'started by another client' }))
      ).json()) as { runId: string };
      await page.locator(`tr.run-row[data-run="${runId}"] .status-completed`).waitFor({ timeout: 15_000 });
      expect(await page.locator(`tr.run-row[data-run="${runId}"]`).textContent()).toContain(
        'started by another client',
      );
      // The row came from the feed: the list was read once, at the start.
      expect(await listReads()).toBe(1);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('`stageloop show RUN --html` is one page that draws the same waterfall from a file, with no server', async () => {
    loopback.server.replyWith({ content: 'Done </script><b>not markup</b>' });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'html please' }))).json()) as {
      runId: string;
    };
    await expect
      .poll(
        async () => ((await (await serve.call(`/v1/runs/${runId}`)).json()) as { run: { status: string } }).run.status,
        { timeout: 15_000 },
      )
      .toBe('completed');
    let html = '';
    const code = await main(['show', runId, '--html', '--store', serve.storeFile], {
      stdout: { write: (text: string) => ((html += text), true) } as NodeJS.WritableStream,
      stderr: process.stderr,
      env: {},
    });
    expect(code).toBe(0);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const file = join(artifacts, 'show-run.html');
    writeFileSync(file, html);
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(file).href);
      expect(await page.locator('pre.answer').textContent()).toBe('Done </script><b>not markup</b>');
      expect(await page.locator('.waterfall .label').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringMatching(/^think · /)]),
      );
      await page.screenshot({ path: join(artifacts, 'show-html.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
