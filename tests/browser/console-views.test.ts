// The console a person would use, in headless Chromium, with a screenshot of each view (test-artifacts/browser/):
// a 6-iteration run's waterfall folded (stage rows then their calls, a legend, a model call's reasoning in its detail),
// the run list with eval runs marked and the "waiting for me" filter, "waiting for approval" in words, an approval card
// whose arguments fit, and no 404 for the icon.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/durable/durable-run.js';
import { evaluate } from '../../src/eval/evaluate.js';
import type { ChatModel } from '../../src/model/types.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { standaloneRunPage } from '../../src/server/console/pages.js';
import { pageSlotNames, runViewOf } from '../../src/server/run-view.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { jsonPost, useServes, waitForStatus } from '../server/serve-support.js';
import { artifacts, openBrowser, skipBrowser } from './browser-support.js';

const loopback = useLoopbackServer();
const serves = useServes();

/** A provider that sends its reasoning with each reply (as reasoning models do). */
function reasoningModel(model: ChatModel): ChatModel {
  return {
    ...model,
    chat: async (request, signal) => ({
      ...(await model.chat(request, signal)),
      reasoning: 'Add one more, then check.',
    }),
  };
}

describe.skipIf(skipBrowser)('the console a person would use', () => {
  it('folds a 6-iteration run to a row each, stage rows first, a legend, a model call’s reasoning in its detail', async () => {
    for (let step = 1; step <= 5; step++)
      loopback.server.replyWithToolCalls([
        { name: 'calculator', arguments: JSON.stringify({ expression: `${step} + 1` }), id: `call_${step}` },
      ]);
    loopback.server.replyWith({ content: 'Done after five sums.' });
    const store = memoryStore();
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Add one five times' },
      {
        store,
        deps: { model: reasoningModel(loopback.model()), tools: testTools() },
      },
    );
    expect(result).toMatchObject({ status: 'completed', iterations: 6 });
    mkdirSync(artifacts, { recursive: true });
    const file = join(artifacts, 'six-iterations.html');
    writeFileSync(file, standaloneRunPage(await runViewOf(store, result.runId, pageSlotNames)));
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(file).href);
      const iterations = page.locator('details.iteration');
      expect(await iterations.count()).toBe(6);
      // Folded: every iteration but the last is one summary row.
      expect(
        await iterations.evaluateAll((all) => all.map((details) => (details as unknown as { open: boolean }).open)),
      ).toEqual([false, false, false, false, false, true]);
      expect(await iterations.first().locator(':scope > summary').textContent()).toMatch(
        /^iteration 1 · \d+ stages, 2 calls · /,
      );
      const folded = (await page.locator('.waterfall').boundingBox())!.height;
      await page.screenshot({ path: join(artifacts, 'waterfall-folded.png'), fullPage: true });
      // The stage's row first, then the calls made while it ran.
      const labels = await iterations.last().locator('.wf-rows .label').allTextContents();
      expect(labels.findIndex((label) => label.startsWith('think · '))).toBeLessThan(
        labels.findIndex((label) => label.startsWith('model · ')),
      );
      expect(await page.locator('.legend .legend-item').allTextContents()).toEqual([
        'stage',
        'model call',
        'tool call',
        'decision',
        'ended the loop',
        'stopped the run',
        'paused for a person',
        'waiting for a person',
      ]);
      await iterations.nth(1).locator(':scope > summary').click();
      const detail = iterations.nth(1).locator('details.call-detail');
      await detail.locator(':scope > summary').click();
      expect(await detail.locator('pre.reasoning').textContent()).toBe('Add one more, then check.');
      await page.screenshot({ path: join(artifacts, 'waterfall-reasoning.png'), fullPage: true });
      await iterations.evaluateAll((all) =>
        all.forEach((details) => ((details as unknown as { open: boolean }).open = true)),
      );
      const unfolded = (await page.locator('.waterfall').boundingBox())!.height;
      console.log(`waterfall of a 6-iteration run: ${Math.round(folded)} px folded, ${Math.round(unfolded)} px open`);
      // Quiet guards already take their rows out of the open view; folding still halves what is left.
      expect(folded).toBeLessThan(unfolded / 2);
      expect(folded).toBeLessThan(600);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('lists eval runs marked, filters the runs waiting for me, says "waiting for approval", fits the arguments', async () => {
    const serve = await serves.start({});
    const { runId } = (await (
      await serve.call('/v1/runs', jsonPost({ task: 'What is 6 * 7?', approveTools: ['calculator'] }))
    ).json()) as { runId: string };
    await waitForStatus(serve, runId, ['interrupted']);
    const evalStore = sqliteStore(serve.storeFile);
    try {
      await evaluate({
        dataset: [{ id: 'sum', task: 'What is 2 + 3?', expected: 5 }],
        variants: [
          { name: 'offline', pipeline: reactPipeline(), deps: { model: new OfflineModel(), tools: testTools() } },
        ],
        store: evalStore,
        evalId: 'eval-console',
      });
    } finally {
      await evalStore.close();
    }
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 404) missing.push(response.url());
      });
      const icon = page.waitForResponse((response) => /\/favicon\.(svg|ico)$/.test(response.url()));
      await page.goto(`${serve.running.url}/`);
      expect((await icon).status()).toBe(200);
      await page.locator('tr.run-row.eval-run').waitFor({ timeout: 15_000 });
      expect(await page.locator('tr.run-row.eval-run .eval-mark').textContent()).toBe('eval · sum · offline');
      const waitingRow = page.locator(`tr.run-row[data-run="${runId}"]`);
      expect(await waitingRow.locator('.status').textContent()).toBe('waiting for approval');
      expect(await page.locator('#waiting-count').textContent()).toBe('1');
      await page.screenshot({ path: join(artifacts, 'console-list.png'), fullPage: true });
      await page.check('#waiting-only');
      expect(await page.locator('tr.run-row').count()).toBe(1);
      expect(await page.locator('tr.run-row').getAttribute('data-run')).toBe(runId);
      await page.screenshot({ path: join(artifacts, 'console-waiting-filter.png'), fullPage: true });
      await waitingRow.click();
      const card = page.locator('.pending-call').first();
      await card.waitFor({ timeout: 15_000 });
      expect(await page.locator('.facts [data-status]').textContent()).toBe('waiting for approval');
      const box = card.locator('textarea.arguments');
      expect((await box.inputValue()).split('\n')).toHaveLength(3);
      // The whole JSON shows: nothing to scroll.
      const fits = await box.evaluate((area) => area.scrollHeight <= area.clientHeight);
      expect(fits).toBe(true);
      await page.screenshot({ path: join(artifacts, 'console-approval-card.png'), fullPage: true });
      expect(missing).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
