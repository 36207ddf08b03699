// The SQLite store's layout: schema 5 keys journal and checkpoint rows by (run << 32) + seq, and a store written
// before it keeps every run's rows, in order, through the migration.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations, openDatabase, walCheckpointPages } from '../../src/store/sqlite-schema.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { liveOwner } from './conformance.js';
import { raw } from './sqlite-fixtures.js';
import { checkpoint, entry, header } from './store-fixtures.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-schema-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const owner = liveOwner('alice');
const fresh = (name: string) => join(directory, name, 'stageloop.db');

describe('sqliteStore layout', () => {
  it('moves the journals and checkpoints of a schema 4 store to keyed rows, each run in seq order', async () => {
    const file = fresh('schema-4');
    mkdirSync(dirname(file), { recursive: true });
    raw(file, (database) => {
      for (const migration of migrations.slice(0, 4)) database.exec(migration);
      database.pragma('user_version = 4');
      const run = database.prepare(`INSERT INTO runs VALUES (?, ?, 'react', 'f1', '0.1.0', '{"task":"t"}', '{}', 1000, 'interrupted', 1000, 1, NULL, NULL, NULL, NULL, ?, 1, 0, NULL, NULL)`);
      run.run(1, 'r1', 3);
      run.run(2, 'r2', 2);
      const journal = database.prepare('INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      // Interleaved and out of order, as two runs recorded side by side leave them.
      for (const [id, seq] of [[2, 2], [1, 3], [1, 1], [2, 1], [1, 2]] as const) {
        const item = entry(seq, { run: id, seq });
        journal.run(id, seq, item.kind, item.zone, item.iteration, item.stage, item.at, JSON.stringify(item.data));
      }
      const saved = database.prepare('INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)');
      for (const [id, seq] of [[1, 3], [2, 2], [1, 1]] as const) {
        const item = checkpoint(seq, { run: id });
        saved.run(id, seq, JSON.stringify(item.position), JSON.stringify(item.state), item.stateHash, item.at);
      }
    });
    const store = sqliteStore(file);
    expect(await store.journal('r1')).toEqual([1, 2, 3].map((seq) => entry(seq, { run: 1, seq })));
    expect(await store.journal('r1', 1)).toEqual([2, 3].map((seq) => entry(seq, { run: 1, seq })));
    expect(await store.journal('r2')).toEqual([1, 2].map((seq) => entry(seq, { run: 2, seq })));
    expect(await store.checkpoints('r1')).toEqual([checkpoint(1, { run: 1 }), checkpoint(3, { run: 1 })]);
    expect(await store.latestCheckpoint('r2')).toEqual(checkpoint(2, { run: 2 }));
    const { claim } = await store.claim('r2', owner);
    await store.append(claim, [entry(3)], { checkpoint: checkpoint(3), dropEarlierCheckpoints: true });
    expect((await store.journal('r2', 2)).map((item) => item.seq)).toEqual([3]);
    expect(await store.checkpoints('r2')).toEqual([checkpoint(3)]);
    expect(await store.checkpoints('r1')).toHaveLength(2);
    await store.close();
    raw(file, (database) => {
      for (const table of ['journal', 'checkpoints']) {
        expect(database.prepare(`SELECT name, pk FROM pragma_table_info('${table}') WHERE pk > 0`).all()).toEqual([{ name: 'key', pk: 1 }]);
      }
      expect(database.prepare('SELECT key FROM journal ORDER BY key').pluck().all()).toEqual([2 ** 32 + 1, 2 ** 32 + 2, 2 ** 32 + 3, 2 * 2 ** 32 + 1, 2 * 2 ** 32 + 2, 2 * 2 ** 32 + 3]);
    });
  });

  it('refuses an entry whose seq a key has no room for, writing nothing', async () => {
    const file = fresh('last-seq');
    const store = sqliteStore(file);
    const claim = await store.create(header('r1'), owner, 5_000);
    const last = 2 ** 32 - 1;
    raw(file, (database) => database.prepare('UPDATE runs SET head = ?').run(last));
    const write = store.append(claim, [entry(last + 1)]);
    await expect(write).rejects.toMatchObject({ code: 'store' });
    await expect(write).rejects.toThrow(`run r1 has ${last} journal entries, as many as a SQLite store keeps for one run: start a new run`);
    expect((await store.get('r1'))?.head).toBe(last);
    expect(await store.journal('r1')).toEqual([]);
    await store.close();
  });

  it('copies the WAL into the database every 4,000 pages, not SQLite default 1,000', () => {
    const file = fresh('wal-pages');
    const database = openDatabase(file, { durability: 'process', busyTimeoutMs: 1_000 });
    try {
      expect(walCheckpointPages).toBe(4_000);
      expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(walCheckpointPages);
      expect(database.pragma('synchronous', { simple: true })).toBe(1);
    } finally {
      database.close();
    }
  });
});
