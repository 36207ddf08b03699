// One build per install path: `npm pack` (scripts on, as a user runs it) after a build reuses dist/ as it is, packs a
// manifest without `prepare` (npm 11 warns that a tarball's prepare is not covered by allowScripts), leaves this
// repository's package.json as it was, and ships LICENSE and the docs.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from './consumer-project.js';

const run = promisify(execFile);
const directories: string[] = [];
afterAll(() => Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true }))));

/** Every file under dist/ with its modification time: what a rebuild would change. */
async function distTimes(): Promise<Record<string, number>> {
  const entries = await readdir(join(repositoryRoot, 'dist'), { recursive: true, withFileTypes: true });
  const times: Record<string, number> = {};
  for (const entry of entries)
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      times[path] = (await stat(path)).mtimeMs;
    }
  return times;
}

describe('npm pack', () => {
  it('reuses an up-to-date dist/, packs no prepare, and ships LICENSE and docs/ (no invented repository, homepage or bugs: the project has no public home yet)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'stageloop-pack-'));
    directories.push(directory);
    const manifestPath = join(repositoryRoot, 'package.json');
    const [before, manifestBefore, manifestTime] = [
      await distTimes(),
      await readFile(manifestPath, 'utf8'),
      (await stat(manifestPath)).mtimeMs,
    ];
    const { stdout, stderr } = await run('npm', ['pack', '--json', '--pack-destination', directory], {
      cwd: repositoryRoot,
      timeout: 600_000,
    });
    expect(stderr).toContain('dist/ is up to date with the sources: not rebuilt');
    expect(await distTimes()).toEqual(before);
    expect(await readFile(manifestPath, 'utf8')).toBe(manifestBefore);
    // Restored to the millisecond (Node 22 and 24 round sub-millisecond times that Node 20 keeps).
    expect(Math.abs((await stat(manifestPath)).mtimeMs - manifestTime)).toBeLessThan(1);

    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed!.files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'docs/approvals.md', 'docs/eval.md']));
    expect(files.filter((file) => file.startsWith('dist/.'))).toEqual([]);
    const { stdout: shipped } = await run('tar', ['-xzOf', join(directory, packed!.filename), 'package/package.json']);
    const manifest = JSON.parse(shipped) as Record<string, unknown> & { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBeUndefined();
    expect(manifest).toMatchObject({ license: 'MIT' });
    const license = await run('tar', ['-xzOf', join(directory, packed!.filename), 'package/LICENSE']);
    expect(license.stdout).toMatch(/^MIT License/);
  }, 620_000);

  it('the build check names why it would build: a source newer than the stamp, or one added or removed', async () => {
    const { staleness, sources } = (await import(join(repositoryRoot, 'scripts/build.mjs'))) as {
      staleness(listed?: string[]): string | undefined;
      sources(): string[];
    };
    expect(staleness()).toBeUndefined();
    expect(staleness([...sources(), 'src/removed-since.ts'])).toBe('sources were added or removed');
  });
});
