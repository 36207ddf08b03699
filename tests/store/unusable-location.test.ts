// No hangs on bad locations: an unusable STAGELOOP_HOME or --store path is one clear line and exit 2, at once.
// Node 20's recursive mkdir spins forever under /proc; makeDirectory makes each missing folder once.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectory } from '../../src/common/make-directory.js';
import { runCli } from '../support/run-cli.js';

describe('an unusable store location', () => {
  it('STAGELOOP_HOME under /proc is one line naming the folder and the fix, exit 2 (it used to spin forever)', async () => {
    const run = await runCli(['run', '-q', 'What is 1+1?'], { STAGELOOP_HOME: '/proc/nope' });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      "stageloop: cannot create the directory of store /proc/nope/stageloop.db (ENOENT: no such file or directory, mkdir '/proc/nope'): set STAGELOOP_HOME to a folder you can write, or pass --store PATH\n",
    );
  });

  it('--store under a regular file is one line, exit 2', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-location-'));
    writeFileSync(join(folder, 'a-file'), 'in the way');
    const run = await runCli(['runs', '--store', join(folder, 'a-file', 'deeper', 'runs.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('(ENOTDIR: not a directory');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('makeDirectory', () => {
  it('makes every missing parent and accepts a folder that exists', () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-mkdir-'));
    const deep = join(folder, 'a', 'b', 'c');
    makeDirectory(deep);
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('throws at once under /proc instead of spinning', () => {
    expect(() => makeDirectory('/proc/nope/deeper')).toThrow(/ENOENT/);
  });
});
