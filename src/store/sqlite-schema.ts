// Opening a SQLite store: the pragmas, the schema version (refuse newer and unreleased ones, migrate older), and retries
// while another process is creating the same file.
import { dirname } from 'node:path';
import { makeDirectory } from '../common/make-directory.js';
import { messageOf } from '../common/error-message.js';
import { storeFailure } from './sqlite-errors.js';
import { connect, sqliteCode, type SqliteConnection, type SqliteDriverName } from './sqlite-driver.js';
import { StageloopError } from '../common/stageloop-error.js';

/**
 * A new store's tables: schema 5, the first one released (the runs, their journals and checkpoints keyed by one
 * integer, (run << 32) + seq, so a write appends at the tree's end; the sessions, their turns and durable facts).
 */
const firstSchema = `
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, pipeline TEXT NOT NULL, fingerprint TEXT NOT NULL,
    version TEXT NOT NULL, input TEXT NOT NULL, options TEXT NOT NULL, created_at INTEGER NOT NULL,
    status TEXT NOT NULL, updated_at INTEGER NOT NULL, epoch INTEGER NOT NULL, owner_id TEXT, owner_pid INTEGER,
    owner_host TEXT, lease_until INTEGER, head INTEGER NOT NULL, iterations INTEGER NOT NULL,
    tokens INTEGER NOT NULL, answer TEXT, outcome TEXT);
  CREATE INDEX runs_by_time ON runs (created_at DESC, id DESC);
  CREATE INDEX runs_by_status ON runs (status, created_at DESC, id DESC);
  CREATE TABLE journal (
    key INTEGER PRIMARY KEY, kind TEXT NOT NULL, zone TEXT NOT NULL, iteration INTEGER NOT NULL, stage TEXT,
    at INTEGER NOT NULL, data TEXT NOT NULL);
  CREATE TABLE checkpoints (
    key INTEGER PRIMARY KEY, position TEXT NOT NULL, state TEXT NOT NULL, state_hash TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE TABLE sessions (
    user_id TEXT NOT NULL, session TEXT NOT NULL, summary TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, PRIMARY KEY (user_id, session)) WITHOUT ROWID;
  CREATE TABLE session_turns (
    user_id TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL, run_id TEXT NOT NULL, task TEXT NOT NULL,
    answer TEXT NOT NULL, tools TEXT NOT NULL, at INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'completed',
    PRIMARY KEY (user_id, session, seq)) WITHOUT ROWID;
  CREATE TABLE session_facts (
    user_id TEXT NOT NULL, session TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, source_run TEXT NOT NULL,
    updated_at INTEGER NOT NULL, PRIMARY KEY (user_id, session, key)) WITHOUT ROWID;`;
const firstVersion = 5;

/** migrations[n] takes a store from schema 5 + n to 6 + n. Never edit a released one. */
export const migrations: readonly string[] = [
  // 6: what each session turn spent, and what its folded turns spent, for the session budget.
  `ALTER TABLE session_turns ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE session_turns ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
   ALTER TABLE sessions ADD COLUMN folded_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE sessions ADD COLUMN folded_cost_usd REAL NOT NULL DEFAULT 0;`,
];
export const schemaVersion = firstVersion + migrations.length;

/** WAL pages between automatic checkpoints. */
export const walCheckpointPages = 4_000;

export interface OpenOptions {
  durability: 'process' | 'power';
  busyTimeoutMs: number;
  /** Which driver opens the file (default: node:sqlite where Node has it, else better-sqlite3). */
  driver?: SqliteDriverName;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Runs `step`, again while SQLite answers BUSY: the WAL switch and the first schema write can race another creator. */
function retryBusy<Result>(step: () => Result, busyTimeoutMs: number): Result {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      return step();
    } catch (error) {
      if (!sqliteCode(error).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20);
    }
  }
}

function checkVersion(version: number, file: string): void {
  if (version > schemaVersion) {
    throw new StageloopError(
      'store',
      `${file} was written by a newer stageloop (store schema ${version}; this one reads up to ${schemaVersion}): upgrade stageloop, or pass another --store path`,
    );
  }
}

function migrate(database: SqliteConnection, file: string): void {
  const userVersion = database.prepare<[], number>('PRAGMA user_version').pluck();
  const readVersion = () => userVersion.get()!;
  const found = readVersion();
  checkVersion(found, file);
  if (found === schemaVersion) return;
  database.immediate(() => {
    // Read again under the write lock: another process may have created or migrated the schema meanwhile.
    const version = readVersion();
    checkVersion(version, file);
    const tables = database
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    if (version === 0 && tables.length > 0) {
      throw new StageloopError(
        'store',
        `${file} is a SQLite database but not a stageloop store (its tables: ${tables.join(', ')}): pass another --store path`,
      );
    }
    if (version > 0 && version < firstVersion) {
      throw new StageloopError(
        'store',
        `${file} was written by a development build of stageloop (store schema ${version}, older than the first released ${firstVersion}): move it away (the next run then starts a new store) or pass another --store path`,
      );
    }
    if (version === 0) database.exec(firstSchema);
    for (let step = Math.max(version, firstVersion); step < schemaVersion; step++)
      database.exec(migrations[step - firstVersion]!);
    database.exec(`PRAGMA user_version = ${schemaVersion}`);
  });
}

/** Opens (or creates) the store file, ready for the statements of schema `schemaVersion`. */
export function openDatabase(file: string, options: OpenOptions): SqliteConnection {
  let database: SqliteConnection | undefined;
  try {
    try {
      makeDirectory(dirname(file));
    } catch (error) {
      throw new StageloopError(
        'store',
        `cannot create the directory of store ${file} (${messageOf(error)}): set STAGELOOP_HOME to a folder you can write, or pass --store PATH`,
      );
    }
    database = connect(file, options.busyTimeoutMs, options.driver);
    const opened = database;
    retryBusy(() => opened.exec('PRAGMA journal_mode = WAL'), options.busyTimeoutMs);
    opened.exec(`PRAGMA synchronous = ${options.durability === 'power' ? 'FULL' : 'NORMAL'}`);
    // Copy the WAL into the database every 4,000 pages (~16 MB), not 1,000: a page every write changes (the run's
    // row, the journal's last leaf) is copied once a checkpoint, and its fsyncs serve 4x the writes. What a crash
    // keeps is the same: until copied, the WAL is the record.
    opened.exec(`PRAGMA wal_autocheckpoint = ${walCheckpointPages}`);
    retryBusy(() => migrate(opened, file), options.busyTimeoutMs);
    return opened;
  } catch (error) {
    database?.close();
    throw storeFailure(file, error, options.busyTimeoutMs);
  }
}
