// The SQLite store's layout: schema 5 (the first released) keys journal and checkpoint rows by (run << 32) + seq; a
// new store has the layout of those cf8dfca wrote (tests/fixtures/sqlite-store-layout.json), an unreleased one is refused.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, walCheckpointPages } from '../../src/store/sqlite-schema.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { liveOwner } from './conformance.js';
import { layoutOf, pragma, raw } from './sqlite-fixtures.js';
import { entry, header } from './store-fixtures.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-schema-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const owner = liveOwner('alice');
const fresh = (name: string) => join(directory, name, 'stageloop.db');
const recorded = JSON.parse(readFileSync(new URL('../fixtures/sqlite-store-layout.json', import.meta.url), 'utf8')) as {
  userVersion: number;
  layout: Record<string, unknown>;
};

describe('sqliteStore layout', () => {
  it("creates the layout of the stores cf8dfca wrote (schema 5, the first released), so theirs open as they are, with schema 6's session usage columns added", async () => {
    const file = fresh('schema-5');
    const store = sqliteStore(file);
    await store.create(header('r1'), owner, 5_000);
    await store.close();
    raw(file, (database) => {
      expect(pragma(database, 'user_version')).toBe(recorded.userVersion + 1);
      const layout = layoutOf(database) as Record<string, { columns: Array<{ name: string }> }>;
      // Migration 6 (the session budget): what each turn spent, and what the session's folded turns spent.
      for (const [table, added] of [
        ['session_turns', ['tokens', 'cost_usd']],
        ['sessions', ['folded_tokens', 'folded_cost_usd']],
      ] as const) {
        const columns = layout[`table ${table}`]!.columns;
        expect(columns.slice(-added.length).map((column) => column.name)).toEqual(added);
        layout[`table ${table}`]!.columns = columns.slice(0, -added.length);
      }
      expect(layout).toEqual(recorded.layout);
    });
  });

  it('refuses a store of a schema never released (1 to 4), leaving it as it was', () => {
    const file = fresh('schema-4');
    mkdirSync(dirname(file), { recursive: true });
    raw(file, (database) => {
      database.exec('CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE)');
      database.exec('PRAGMA user_version = 4');
    });
    expect(() => openDatabase(file, { durability: 'process', busyTimeoutMs: 1_000 })).toThrow(
      /written by a development build of stageloop \(store schema 4, older than the first released 5\)/,
    );
    raw(file, (database) => expect(pragma(database, 'user_version')).toBe(4));
  });

  it('refuses an entry whose seq a key has no room for, writing nothing', async () => {
    const file = fresh('last-seq');
    const store = sqliteStore(file);
    const claim = await store.create(header('r1'), owner, 5_000);
    const last = 2 ** 32 - 1;
    raw(file, (database) => database.prepare('UPDATE runs SET head = ?').run(last));
    const write = store.append(claim, [entry(last + 1)]);
    await expect(write).rejects.toMatchObject({ code: 'store' });
    await expect(write).rejects.toThrow(
      `run r1 has ${last} journal entries, as many as a SQLite store keeps for one run: start a new run`,
    );
    expect((await store.get('r1'))?.head).toBe(last);
    expect(await store.journal('r1')).toEqual([]);
    await store.close();
  });

  it('copies the WAL into the database every 4,000 pages, not SQLite default 1,000', () => {
    const file = fresh('wal-pages');
    const database = openDatabase(file, { durability: 'process', busyTimeoutMs: 1_000 });
    try {
      expect(walCheckpointPages).toBe(4_000);
      expect(pragma(database, 'wal_autocheckpoint')).toBe(walCheckpointPages);
      expect(pragma(database, 'synchronous')).toBe(1);
    } finally {
      database.close();
    }
  });
});
