// Where a store lives: --store (a file path, postgres:// or redis:// URL), else $STAGELOOP_STORE, else
// $STAGELOOP_HOME/stageloop.db, else ./.stageloop/stageloop.db; opening it, and this process's Owner for claims.
// A URL of a scheme stageloop does not know is refused rather than taken as a file name.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StageloopError } from '../common/stageloop-error.js';
import { isPostgresUrl, redactUrl } from './postgres-connection.js';
import { postgresStore } from './postgres-store.js';
import { isRedisUrl } from './redis-connection.js';
import { redisStore } from './redis-store.js';
import { sqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import type { Owner, RunStore } from './types.js';

export const storeFileName = 'stageloop.db';

export interface StoreLocation {
  /** An explicit location (`--store PATH` or URL): wins over everything else. */
  path?: string;
  /** The environment to read STAGELOOP_STORE and STAGELOOP_HOME from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Where a relative default is resolved (default: the current directory). */
  cwd?: string;
}

export type StoreKind = 'sqlite' | 'postgres' | 'redis';

/** The location as given: --store, else STAGELOOP_STORE; undefined for the default file. */
export function storeGiven(location: StoreLocation): string | undefined {
  if (location.path !== undefined && location.path !== '') return location.path;
  const fromEnv = (location.env ?? process.env).STAGELOOP_STORE;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined;
}

/** Which store a location names; a URL of another scheme (ftp://, mysql://, file://) is a configuration error. */
export function storeKind(location: StoreLocation = {}): StoreKind {
  const value = storeGiven(location);
  if (value === undefined) return 'sqlite';
  if (isPostgresUrl(value)) return 'postgres';
  if (isRedisUrl(value)) return 'redis';
  // "postgres:host/db" (no //) is a mistyped URL, not a file name.
  const mistyped = /^(postgres|postgresql|rediss?):/i.exec(value)?.[1];
  if (mistyped !== undefined)
    throw new StageloopError(
      'config',
      `store "${redactUrl(value)}" is not a URL: write it as ${mistyped.toLowerCase()}://${mistyped.startsWith('r') ? 'HOST:PORT' : 'USER@HOST:PORT/DATABASE'}`,
    );
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1];
  if (scheme !== undefined) {
    throw new StageloopError(
      'config',
      `store "${redactUrl(value)}": stageloop does not know ${scheme}:// stores; use a file path (./runs.db), postgres://USER@HOST:PORT/DATABASE or redis://HOST:PORT`,
    );
  }
  return 'sqlite';
}

/** The absolute path of the SQLite file for this location (a URL location is returned as given). */
export function storePath(location: StoreLocation = {}): string {
  const cwd = location.cwd ?? process.cwd();
  const value = storeGiven(location);
  if (value !== undefined) return storeKind(location) === 'sqlite' ? resolve(cwd, value) : value;
  const home = (location.env ?? process.env).STAGELOOP_HOME;
  if (home !== undefined && home !== '') return resolve(cwd, home, storeFileName);
  return resolve(cwd, join('.stageloop', storeFileName));
}

/** How the store is named in messages and output: the file, or the URL without its password. */
export function storeDisplayName(location: StoreLocation = {}): string {
  return storeKind(location) === 'sqlite' ? storePath(location) : redactUrl(storeGiven(location)!);
}

/** Opens the store at this location: the SQLite file (created with its directory if missing), PostgreSQL or Redis. */
export function openStore(location: StoreLocation = {}, options: SqliteStoreOptions = {}): RunStore {
  const kind = storeKind(location);
  if (kind === 'postgres') return postgresStore(storeGiven(location)!, options.clock ? { clock: options.clock } : {});
  if (kind === 'redis') return redisStore(storeGiven(location)!, options.clock ? { clock: options.clock } : {});
  return sqliteStore(storePath(location), options);
}

/** A new Owner for this process: a fresh random id each call, so two runs in one process never share a claim. */
export function makeOwner(): Owner {
  return { id: randomUUID(), pid: process.pid, host: hostname() };
}
