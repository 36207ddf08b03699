// A plan step with a sub-plan, shown nested everywhere a person or a program looks: `stageloop run --json` (each
// sub-step names its `parent`), `stageloop show` (the sub-steps' waves indented under their step) and
// `stageloop show --html` in headless Chromium (the sub-plan's list inside its step's item), with a screenshot.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFlags, rowContext, type RowContext } from '../app/matrix/matrix-harness.js';
import { artifacts, openBrowser, skipBrowser } from './browser-support.js';

let context: RowContext;
beforeAll(async () => {
  context = await rowContext({});
});
afterAll(() => context?.model.close());

describe('sub-plans shown nested (observe-plan-act "Task Decomposition Tree")', () => {
  it('run --json, show and show --html show the sub-steps under their step', async () => {
    const run = await context.cli([
      'run',
      '--json',
      ...modelFlags(context),
      '--pipeline',
      'plan-execute-replan',
      'In sub-steps: what is 12 * 7?',
    ]);
    const result = JSON.parse(run.stdout) as {
      runId: string;
      status: string;
      answer: string;
      plan: { steps: Array<{ id: string; status: string; parent?: string; result?: string }> };
    };
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 84.' });
    expect(result.plan.steps.map((step) => [step.id, step.status, step.parent ?? null])).toEqual([
      ['p', 'completed', null],
      ['p.a', 'completed', 'p'],
      ['p.b', 'completed', 'p'],
    ]);
    expect(result.plan.steps[0]!.result).toMatch(/^p\.a: .*36.*\np\.b: .*48/);

    const show = await context.cli(['show', result.runId]);
    expect(show.code).toBe(0);
    const plan = show.stdout.slice(show.stdout.indexOf('\nplan'));
    expect(plan).toMatch(
      /\n {2}wave 1:\n {4}\[x\] p · sub-plan[^\n]*\n {8}Compute the parts\n {8}wave 1 \(side by side\):\n {10}\[x\] p\.a[^\n]*\n {14}Compute 12 \* 3\n {10}\[x\] p\.b/,
    );

    const html = await context.cli(['show', result.runId, '--html']);
    expect(html.code).toBe(0);
    if (skipBrowser) return;
    const browser = await openBrowser();
    const file = join(artifacts, 'sub-plan.html');
    writeFileSync(file, html.stdout);
    try {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(file).href);
      const outer = page.locator('ol.plan[data-parent=""] > li.wave > ul > li[data-step="p"]');
      await outer.waitFor();
      const nested = outer.locator(':scope > ol.sub-plan[data-parent="p"] li[data-step]');
      expect(await nested.evaluateAll((items) => items.map((item) => item.getAttribute('data-step')))).toEqual([
        'p.a',
        'p.b',
      ]);
      expect(await nested.first().textContent()).toBe('p.a: Compute 12 * 3 — completed');
      // The sub-steps sit to the right of their step.
      const [stepBox, subBox] = [await outer.boundingBox(), await nested.first().boundingBox()];
      expect(subBox!.x).toBeGreaterThan(stepBox!.x);
      await page
        .locator('ol.plan')
        .first()
        .screenshot({ path: join(artifacts, 'sub-plan.png') });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
