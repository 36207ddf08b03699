// Where the CLI's store lives (an explicit path, else $STAGELOOP_HOME/stageloop.db, else ./.stageloop/stageloop.db),
// opening it, and this process's Owner for claims.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { sqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import type { Owner, RunStore } from './types.js';

export const storeFileName = 'stageloop.db';

export interface StoreLocation {
  /** An explicit file (`--store PATH`): wins over everything else. */
  path?: string;
  /** The environment to read STAGELOOP_HOME from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Where a relative default is resolved (default: the current directory). */
  cwd?: string;
}

/** The absolute path of the store file for this location. */
export function storePath(location: StoreLocation = {}): string {
  const cwd = location.cwd ?? process.cwd();
  if (location.path !== undefined && location.path !== '') return resolve(cwd, location.path);
  const home = (location.env ?? process.env).STAGELOOP_HOME;
  if (home !== undefined && home !== '') return resolve(cwd, home, storeFileName);
  return resolve(cwd, join('.stageloop', storeFileName));
}

/** Opens (creating it and its directory if missing) the SQLite store at this location. */
export function openStore(location: StoreLocation = {}, options: SqliteStoreOptions = {}): RunStore {
  return sqliteStore(storePath(location), options);
}

/** A new Owner for this process: a fresh random id each call, so two runs in one process never share a claim. */
export function makeOwner(): Owner {
  return { id: randomUUID(), pid: process.pid, host: hostname() };
}
