import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeOwner, openStore, storePath } from '../../src/store/location.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-location-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('store location', () => {
  it('takes an explicit path first, then $STAGELOOP_HOME, then ./.stageloop, each resolved against the directory', () => {
    const env = { STAGELOOP_HOME: 'home' };
    expect(storePath({ path: 'mine.db', env, cwd: '/work/x' })).toBe('/work/x/mine.db');
    expect(storePath({ path: '/abs/runs.db', env, cwd: '/work/x' })).toBe('/abs/runs.db');
    expect(storePath({ env, cwd: '/work/x' })).toBe('/work/x/home/stageloop.db');
    expect(storePath({ env: { STAGELOOP_HOME: '/var/lib/sl' }, cwd: '/work/x' })).toBe('/var/lib/sl/stageloop.db');
    expect(storePath({ env: { STAGELOOP_HOME: '' }, cwd: '/work/x' })).toBe('/work/x/.stageloop/stageloop.db');
    expect(storePath({ env: {}, cwd: '/work/x' })).toBe('/work/x/.stageloop/stageloop.db');
  });

  it('opens the default store, creating its directory', async () => {
    const store = openStore({ env: {}, cwd: directory });
    expect(await store.list()).toEqual([]);
    await store.close();
    expect(existsSync(join(directory, '.stageloop', 'stageloop.db'))).toBe(true);
  });

  it('makes a fresh owner for this process on each call', () => {
    const [first, second] = [makeOwner(), makeOwner()];
    expect(first).toMatchObject({ pid: process.pid, host: hostname() });
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.id).not.toBe(first.id);
  });
});
