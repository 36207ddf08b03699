import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeOwner, openStore, storeDisplayName, storeKind, storePath } from '../../src/store/location.js';

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

  it('takes $STAGELOOP_STORE after --store and before $STAGELOOP_HOME, as a file or a URL', () => {
    expect(storePath({ env: { STAGELOOP_STORE: 'runs.db', STAGELOOP_HOME: 'home' }, cwd: '/work/x' })).toBe(
      '/work/x/runs.db',
    );
    expect(storePath({ path: 'mine.db', env: { STAGELOOP_STORE: 'runs.db' }, cwd: '/work/x' })).toBe('/work/x/mine.db');
    const env = { STAGELOOP_STORE: 'postgres://app:s3cret@db.internal:5432/agents' };
    expect(storeKind({ env })).toBe('postgres');
    expect(storeKind({ path: 'postgresql://db/agents' })).toBe('postgres');
    expect(storeKind({ path: 'redis://127.0.0.1:6379' })).toBe('redis');
    expect(storeKind({ path: './runs.db' })).toBe('sqlite');
    expect(storeDisplayName({ env })).toBe('postgres://app:***@db.internal:5432/agents');
  });

  it('refuses a URL of a scheme stageloop does not know, and a mistyped one, instead of making a file of it', () => {
    expect(() => storeKind({ path: 'mysql://root:hunter2@db/runs' })).toThrow(
      'store "mysql://root:***@db/runs": stageloop does not know mysql:// stores; use a file path (./runs.db), postgres://USER@HOST:PORT/DATABASE or redis://HOST:PORT',
    );
    expect(() => openStore({ env: { STAGELOOP_STORE: 'file:///tmp/x.db' }, cwd: directory })).toThrow(
      'stageloop does not know file:// stores',
    );
    expect(() => storeKind({ path: 'postgres:db/runs' })).toThrow(
      'store "postgres:db/runs" is not a URL: write it as postgres://USER@HOST:PORT/DATABASE',
    );
    expect(existsSync(join(directory, 'mysql:'))).toBe(false);
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
