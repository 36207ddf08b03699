// Which build the bin runs: the bundle in dist/cli/ (npm run build), unless a tsc build is newer than it; and the
// bundle itself: its calculator process, its source maps, and what it leaves to the packages.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../support/run-cli.js';

const bundleFolder = fileURLToPath(new URL('../../dist/cli/', import.meta.url));

/** A CLI entry that prints which build it is and whether source maps are on. */
const fakeEntry = (label: string) =>
  `export async function runAndExit() { process.stdout.write(\`${label} \${process.sourceMapsEnabled}\\n\`); process.exit(0); }\n`;

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'stageloop-bin-'));
  await mkdir(join(directory, 'bin'));
  await copyFile(cliPath, join(directory, 'bin', 'stageloop.js'));
  await copyFile(new URL('../../package.json', import.meta.url), join(directory, 'package.json'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

async function writeBuild(relative: string, text: string, secondsAgo: number): Promise<void> {
  const path = join(directory, relative);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  const at = Date.now() / 1000 - secondsAgo;
  await utimes(path, at, at);
}

function runBin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [join(directory, 'bin', 'stageloop.js'), ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
}

describe('the bin', () => {
  it('runs the bundle when it is newer than the tsc build, and when there is no tsc record (a packed install)', async () => {
    await writeBuild('dist/app/cli/main.js', fakeEntry('compiled'), 20);
    await writeBuild('dist/.tsbuildinfo', '{}', 20);
    await writeBuild('dist/cli/main.js', fakeEntry('bundle'), 10);
    expect((await runBin(['--help'])).stdout).toBe('bundle false\n');
    await rm(join(directory, 'dist', '.tsbuildinfo'));
    expect((await runBin(['--help'])).stdout).toBe('bundle false\n');
  });

  it("runs tsc's files when a tsc build is newer than the bundle, or when there is no bundle", async () => {
    await writeBuild('dist/app/cli/main.js', fakeEntry('compiled'), 20);
    await writeBuild('dist/cli/main.js', fakeEntry('bundle'), 10);
    await writeBuild('dist/.tsbuildinfo', '{}', 5);
    expect((await runBin(['--help'])).stdout).toBe('compiled false\n');
    await rm(join(directory, 'dist', 'cli'), { recursive: true });
    expect((await runBin(['--help'])).stdout).toBe('compiled false\n');
  });

  it('turns source maps on for --verbose only, before the CLI loads', async () => {
    await writeBuild('dist/cli/main.js', fakeEntry('bundle'), 10);
    expect((await runBin(['run', '--verbose', 'x'])).stdout).toBe('bundle true\n');
  });

  it('with a tsc build but no CLI file at all, says to run the build in one line', async () => {
    await writeBuild('dist/.tsbuildinfo', '{}', 5);
    const result = await runBin(['--help']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'stageloop: the compiled CLI is missing: run "npm run build" in the stageloop folder (npm ci runs it too)\n',
    );
  });
});

describe('the bundle (dist/cli/)', () => {
  it('calculates in its own calculator process, found beside the chunks', async () => {
    const result = await runCli(['run', '-q', '--no-store', 'What is 17 * 23 + 4?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('395');
  });

  it('maps back to the TypeScript sources', async () => {
    const map = JSON.parse(await readFile(join(bundleFolder, 'main.js.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: string[];
    };
    expect(map.sources.some((source) => source.endsWith('app/cli/main.ts'))).toBe(true);
    expect(map.sources.filter((source) => source.includes('/dist/'))).toEqual([]);
  });

  it('imports (or requires) every package but zod from node_modules, and the OTel set-up from dist/otel.config.js', async () => {
    const texts = await Promise.all(
      (await readdir(bundleFolder))
        .filter((name) => name.endsWith('.js'))
        .map((name) => readFile(join(bundleFolder, name), 'utf8')),
    );
    const specifiers = new Set(
      texts.flatMap((text) =>
        [...text.matchAll(/(?:from |import\(|require\d*\()"([^"./][^"]*)"/g)].map((match) => match[1]!),
      ),
    );
    expect([...specifiers].filter((name) => name.startsWith('zod'))).toEqual([]);
    for (const name of ['better-sqlite3', 'openai', 'ky', 'gpt-tokenizer'])
      expect(
        [...specifiers].some((specifier) => specifier === name || specifier.startsWith(`${name}/`)),
        name,
      ).toBe(true);
    expect(texts.some((text) => text.includes('"../otel.config.js"'))).toBe(true);
  });
});
