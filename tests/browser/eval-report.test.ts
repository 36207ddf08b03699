// The eval --html report opened in Debian's Chromium: summary, charts drawn, a failed case opens its grades and run timeline.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';
import { arithmeticJsonl, serveArithmetic } from '../eval/arithmetic-server.js';
import { artifacts, openBrowser, skipBrowser } from './browser-support.js';

const loopback = useLoopbackServer();

describe.skipIf(skipBrowser)('the eval report', { timeout: 120_000 }, () => {
  it('is one self-contained page whose charts render and whose cases open their runs', async () => {
    serveArithmetic(loopback.server);
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-eval-report-'));
    writeFileSync(join(folder, 'cases.jsonl'), arithmeticJsonl);
    const report = join(folder, 'report.html');
    const result = await runCli(
      [
        'eval',
        join(folder, 'cases.jsonl'),
        '--variant',
        'tools=react',
        '--variant',
        'bare=react:--no-tools',
        '--html',
        report,
      ],
      { OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model', STAGELOOP_HOME: folder },
    );
    expect(result.stderr).toContain(`report written to ${report}`);
    const html = readFileSync(report, 'utf8');
    // Nothing is fetched: no external script, style or image.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      const requests: string[] = [];
      page.on('request', (request) => void requests.push(request.url()));
      const errors: string[] = [];
      page.on('pageerror', (error) => void errors.push(error.message));
      await page.goto(pathToFileURL(report).href);
      await page.locator('#summary tbody tr').nth(1).waitFor();
      expect(await page.locator('#summary tbody tr').allInnerTexts()).toEqual([
        expect.stringMatching(/^tools\s+4\/4\s+100%\s+1\.00/),
        expect.stringMatching(/^bare\s+2\/4\s+50%\s+0\.50/),
      ]);
      // Charts: a pass-rate and a score bar per variant, a point per run, latency bars.
      expect(await page.locator('#chart-score rect.bar').count()).toBe(4);
      expect(await page.locator('#chart-tokens circle.point').count()).toBe(8);
      expect(await page.locator('#chart-latency rect.bar').count()).toBeGreaterThan(0);
      const barHeight = await page
        .locator('#chart-score rect.bar')
        .first()
        .evaluate((node) => (node as unknown as { getBBox(): { height: number } }).getBBox().height);
      expect(barHeight).toBeGreaterThan(100);
      // Axes with ticks and their values; a legend naming each variant's colour.
      expect(await page.locator('#chart-score text.tick-label').allTextContents()).toEqual([
        '0%',
        '25%',
        '50%',
        '75%',
        '100%',
      ]);
      expect(await page.locator('#chart-tokens text.tick-label').count()).toBe(10);
      expect(await page.locator('#chart-latency text.tick-label').count()).toBeGreaterThanOrEqual(7);
      for (const id of ['chart-score', 'chart-tokens', 'chart-latency'])
        expect(await page.locator(`figure:has(#${id}) .chart-legend .legend-item`).allTextContents()).toEqual(
          expect.arrayContaining(['tools', 'bare']),
        );
      await page.locator('td.cell.fail[data-case="multiply"][data-variant="bare"]').click();
      await page.locator('#detail .waterfall').waitFor();
      const detail = await page.locator('#detail').innerText();
      expect(detail).toMatch(/multiply · bare · FAIL/);
      expect(detail).toMatch(/contains 0\.00: the answer has no 391/);
      expect(detail).toMatch(/Timeline/);
      await page.screenshot({ path: join(artifacts, 'eval-report.png'), fullPage: true });
      expect(errors).toEqual([]);
      expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
