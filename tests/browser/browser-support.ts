// Debian's Chromium driven by playwright-core (its own browser download cannot work here), with a fresh profile.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);
/** Skipped only when Chromium is missing on a developer's machine; in CI a missing browser fails the tests. */
export const skipBrowser = !hasChromium && process.env.CI === undefined;
if (skipBrowser)
  console.warn(`tests/browser skipped: no Chromium at ${chromiumPath} (install it with: apt-get install -y chromium)`);

/** Screenshots land here (ignored by git), for a person to look at after a run. */
export const artifacts = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));

const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function openBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  mkdirSync(artifacts, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'stageloop-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    args: flags,
    headless: true,
    viewport: { width: 1000, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
