// sqliteStore: the shared conformance suite, then what only a file has: schema versions, damage, removal, locks; once
// for each SQLite driver this Node runs (node:sqlite on 22.13 and newer, better-sqlite3 where its addon is built).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaVersion } from '../../src/store/sqlite-schema.js';
import { sqliteStore as anyDriverStore, type SqliteStoreOptions } from '../../src/store/sqlite-store.js';
import { connect, type SqliteDriverName } from '../../src/store/sqlite-driver.js';
import { isStageloopError, type StageloopError } from '../../src/common/stageloop-error.js';
import { checkpoint, entry, header, liveOwner, storeConformance, type StoreFactory } from './conformance.js';
import { storeLeaseConformance } from './conformance-leases.js';
import { eachDriver, pragma, raw as rawWith } from './sqlite-fixtures.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
eachDriver('sqliteStore', (driver: SqliteDriverName) => {
  const sqliteStore = (path: string, options: SqliteStoreOptions = {}) => anyDriverStore(path, { ...options, driver });
  const raw: typeof rawWith = (file, body) => rawWith(file, body, driver);
  let count = 0;

  const factory: StoreFactory = (clock) =>
    sqliteStore(join(directory, `conformance-${++count}`, 'stageloop.db'), { clock });
  storeConformance(`sqliteStore (${driver})`, factory);
  storeLeaseConformance(`sqliteStore (${driver})`, factory);

  const owner = liveOwner('alice');
  const fresh = (name: string) => join(directory, name, 'nested', 'stageloop.db');

  function openFailure(file: string): StageloopError {
    try {
      sqliteStore(file).close();
    } catch (error) {
      if (isStageloopError(error)) return error;
      throw error;
    }
    throw new Error(`${file} opened`);
  }

  describe('sqliteStore files', () => {
    it('creates the directory, and keeps everything across close and reopen', async () => {
      const file = fresh('reopen');
      const store = sqliteStore(file);
      const claim = await store.create(header('r1'), owner, 5_000);
      await store.append(claim, [entry(1)], { checkpoint: checkpoint(1) });
      await store.close();
      expect(existsSync(file)).toBe(true);
      const again = sqliteStore(file, { durability: 'power' });
      expect(await again.journal('r1')).toEqual([entry(1)]);
      expect(await again.latestCheckpoint('r1')).toEqual(checkpoint(1));
      await again.close();
    });

    it('names a bad option, and a store path it cannot create', () => {
      expect(() => sqliteStore(fresh('options'), { durability: 'disk' as 'power' })).toThrow(
        'durability must be "process" or "power", got "disk"',
      );
      expect(() => sqliteStore(fresh('options'), { busyTimeoutMs: -5 })).toThrow(
        'busyTimeoutMs must be a whole number of ms >= 0, got -5',
      );
      const blocker = join(directory, 'a-file');
      writeFileSync(blocker, 'in the way');
      expect(() => sqliteStore(join(blocker, 'stageloop.db'))).toThrow(
        `cannot create the directory of store ${blocker}/stageloop.db (${blocker} exists and is not a directory): set STAGELOOP_HOME to a folder you can write, or pass --store PATH`,
      );
    });

    it('refuses a store written by a newer stageloop in one line, and leaves it as it was', async () => {
      const file = fresh('newer');
      const store = sqliteStore(file);
      await store.create(header('r1'), owner, 5_000);
      await store.close();
      raw(file, (database) => database.exec('PRAGMA user_version = 99'));
      expect(openFailure(file).message).toBe(
        `${file} was written by a newer stageloop (store schema 99; this one reads up to ${schemaVersion}): upgrade stageloop, or pass another --store path`,
      );
      raw(file, (database) => {
        expect(pragma(database, 'user_version')).toBe(99);
        expect(database.prepare('SELECT run_id FROM runs').pluck().all()).toEqual(['r1']);
      });
    });

    it('names a file that is not a database, a truncated store, another program database and a store missing its tables', async () => {
      const garbage = fresh('garbage');
      mkdirSync(dirname(garbage), { recursive: true });
      const text = 'these are my notes, not a database\n'.repeat(200);
      writeFileSync(garbage, text);
      expect(openFailure(garbage).message).toBe(
        `${garbage} is not a stageloop store or is damaged (file is not a database): move it away (the next run then starts a new store) or pass another --store path`,
      );
      expect(readFileSync(garbage, 'utf8')).toBe(text);

      const truncated = fresh('truncated');
      const store = sqliteStore(truncated);
      for (let index = 0; index < 40; index++) {
        const claim = await store.create(header(`r${index}`, { input: { task: 'x'.repeat(3_000) } }), owner, 5_000);
        await store.append(claim, [entry(1, 'y'.repeat(3_000))]);
      }
      await store.close();
      truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
      expect(openFailure(truncated).message).toMatch(
        new RegExp(
          `^${truncated} is not a stageloop store or is damaged \\(database disk image is malformed\\): move it away`,
        ),
      );

      const foreign = fresh('foreign');
      mkdirSync(dirname(foreign), { recursive: true });
      raw(foreign, (database) =>
        database.exec('CREATE TABLE invoices (id INTEGER); CREATE TABLE customers (id INTEGER)'),
      );
      expect(openFailure(foreign).message).toBe(
        `${foreign} is a SQLite database but not a stageloop store (its tables: customers, invoices): pass another --store path`,
      );

      const gutted = fresh('gutted');
      sqliteStore(gutted).close();
      raw(gutted, (database) => database.exec('DROP TABLE checkpoints'));
      expect(openFailure(gutted).message).toBe(
        `${gutted} does not have the tables of a stageloop store (no such table: checkpoints): move it away (the next run then starts a new store) or pass another --store path`,
      );
      raw(gutted, (database) => expect(database.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(0));
    });

    it('fails a write with a store error naming the reason when the file is removed under a live store', async () => {
      const file = fresh('removed');
      const store = sqliteStore(file);
      const claim = await store.create(header('r1'), owner, 5_000);
      rmSync(file);
      const write = store.append(claim, [entry(1)], { checkpoint: checkpoint(1) });
      await expect(write).rejects.toMatchObject({ code: 'store' });
      await expect(write).rejects.toThrow(
        `store ${file} was removed or replaced while this process had it open: its writes can no longer be kept; restore the file, then resume the run`,
      );
      await store.close();
    });

    it('fails a write with a store error naming the reason when the file or its WAL is made read-only under a live store', async (context) => {
      const file = fresh('read-only');
      const store = sqliteStore(file);
      const claim = await store.create(header('r1'), owner, 5_000);
      // Root (as here) writes through chmod, and an open descriptor ignores it anyway: the immutable flag binds both.
      const immutable = (flag: '+i' | '-i', path: string) => spawnSync('chattr', [flag, path]).status === 0;
      if (!immutable('+i', file)) context.skip('chattr +i is not available on this file system');
      try {
        await expect(store.append(claim, [entry(1)])).rejects.toThrow(
          `store ${file} was made read-only (EPERM): make it writable, then resume the run`,
        );
      } finally {
        immutable('-i', file);
      }
      // Only the WAL, where SQLite writes first: SQLite's own I/O error, with what the file system says.
      immutable('+i', `${file}-wal`);
      try {
        const write = store.append(claim, [entry(1)], { checkpoint: checkpoint(1, { big: 'z'.repeat(50_000) }) });
        await expect(write).rejects.toMatchObject({ code: 'store' });
        await expect(write).rejects.toThrow(
          `store ${file} cannot be written: ${file}-wal is read-only (EPERM) (disk I/O error): fix that, then resume the run`,
        );
      } finally {
        immutable('-i', `${file}-wal`);
      }
      await store.append(claim, [entry(1)]);
      expect((await store.get('r1'))?.head).toBe(1);
      await store.close();
    });

    it('fails a write with a store error naming a full disk, keeping every write before it', async (context) => {
      const mountPoint = mkdtempSync(join(tmpdir(), 'stageloop-full-'));
      if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]).status !== 0) {
        rmSync(mountPoint, { recursive: true, force: true });
        context.skip('cannot mount a small tmpfs here (needs root)');
      }
      const file = join(mountPoint, 'stageloop.db');
      const store = sqliteStore(file);
      try {
        const claim = await store.create(header('r1'), owner, 5_000);
        let seq = 0;
        let failure: unknown;
        while (failure === undefined && seq < 100) {
          await store
            .append(claim, [entry(seq + 1)], { checkpoint: checkpoint(seq + 1, { filler: `${seq}`.repeat(20_000) }) })
            .then(
              () => seq++,
              (error: unknown) => (failure = error),
            );
        }
        expect(failure).toMatchObject({ code: 'store' });
        expect((failure as Error).message).toBe(
          `store ${file}: the disk is full: free some space, then resume the run`,
        );
        expect(seq).toBeGreaterThan(0);
        expect((await store.journal('r1')).map((item) => item.seq)).toEqual(
          Array.from({ length: seq }, (_, index) => index + 1),
        );
        expect((await store.latestCheckpoint('r1'))?.seq).toBe(seq);
      } finally {
        await store.close();
        spawnSync('umount', [mountPoint]);
        rmSync(mountPoint, { recursive: true, force: true });
      }
    });

    it('fails a write with a store error naming the lock when another connection holds the database past the busy timeout', async () => {
      const file = fresh('locked');
      const store = sqliteStore(file, { busyTimeoutMs: 50 });
      const claim = await store.create(header('r1'), owner, 5_000);
      const holder = connect(file, 0, driver);
      holder.exec('BEGIN EXCLUSIVE');
      try {
        await expect(store.append(claim, [entry(1)])).rejects.toThrow(
          `store ${file} is locked by another process (waited 50 ms): try again once it is done`,
        );
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      await store.append(claim, [entry(1)]);
      await store.close();
    });
  });
});
