// Chromium runs a page built on the AI SDK's client against a real `stageloop serve`: the reply's parts render.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';
import { useServes } from '../server/serve-support.js';
import { openBrowser, skipBrowser } from './browser-support.js';

const serves = useServes();

async function bundledPage(): Promise<string> {
  const output = (await build({
    configFile: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      write: false,
      minify: false,
      lib: { entry: fileURLToPath(new URL('./chat-page.js', import.meta.url)), formats: ['es'], fileName: 'chat-page' },
    },
  })) as Rolldown.RolldownOutput[];
  const code = output[0]!.output[0].code;
  return `<!doctype html><html><body><form><input name="task"><button>send</button></form><ol id="reply"></ol><script type="module">${code.replaceAll('</script', '<\\/script')}</script></body></html>`;
}

describe.skipIf(skipBrowser)('a browser page on the AI SDK client', () => {
  it('sends a message to /v1/chat and renders the tool part and the answer', { timeout: 90_000 }, async () => {
    const [serve, html] = await Promise.all([serves.start(), bundledPage()]);
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      // The page is served from the server's own origin (same-origin fetch), the API answers for real.
      await page.route(`${serve.running.url}/chat-page`, (route) =>
        route.fulfill({ contentType: 'text/html', body: html }),
      );
      await page.goto(`${serve.running.url}/chat-page`);
      await page.fill('input', 'What is 17 * 23 + 4?');
      await page.click('button');
      await page.waitForSelector('body[data-done="true"]', { timeout: 60_000 });
      const parts = await page.$$eval('#reply li', (items) =>
        items.map((item) => ({ type: item.getAttribute('data-type'), text: item.textContent ?? '' })),
      );
      expect(parts.find((part) => part.type === 'tool-calculator')?.text).toContain('output-available');
      expect(
        parts
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join(''),
      ).toContain('395');
    } finally {
      await browser.close();
    }
  });
});
