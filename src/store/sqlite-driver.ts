// The SQLite drivers a store file opens with: Node's built-in node:sqlite (22.13 and newer, no flag) or the optional
// better-sqlite3 package (Node 20). Both are one small connection shape, so the store and sessions code is shared and
// a file written through one reads through the other (it is the same SQLite file format).
import { createRequire } from 'node:module';
import type BetterSqlite from 'better-sqlite3';
import { optionalPackages, requireOptional } from '../common/optional-package.js';
import { StageloopError } from '../common/stageloop-error.js';

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

export interface SqliteStatement<Params extends unknown[], Row> {
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  run(...params: Params): { changes: number };
  /** The same statement answering each row's first column only. */
  pluck(): SqliteStatement<Params, Row>;
}

export interface SqliteConnection {
  readonly driver: SqliteDriverName;
  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): SqliteStatement<Params, Row>;
  exec(sql: string): void;
  /** Runs `body` in one BEGIN IMMEDIATE transaction: committed when it returns, rolled back when it throws. */
  immediate<Result>(body: () => Result): Result;
  close(): void;
}

/** The part of node:sqlite used here (typed locally: the published types must not need @types/node 22). */
interface NodeStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: new (path: string) => NodeDatabase;
}

const require = createRequire(import.meta.url);
let builtIn: NodeSqlite | null | undefined;
let betterSqlite: typeof BetterSqlite | undefined;

/** Node's node:sqlite, or null where this Node has none (20, or 22 before 22.13 without --experimental-sqlite). */
export function builtInSqlite(): NodeSqlite | null {
  if (builtIn !== undefined) return builtIn;
  // Node 22 warns "SQLite is an experimental feature" on load: a CLI run would print it above every answer.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(warning).includes('SQLite is an experimental feature'))
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    builtIn = require('node:sqlite') as NodeSqlite;
  } catch {
    builtIn = null;
  } finally {
    process.emitWarning = emitWarning;
  }
  return builtIn;
}

/** Whether better-sqlite3 can be loaded here (installed, and its native addon built for this Node). */
export function betterSqliteLoads(): boolean {
  try {
    new (loadBetterSqlite())(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

function loadBetterSqlite(): typeof BetterSqlite {
  return (betterSqlite ??= requireOptional(
    `a SQLite store on Node ${process.version} (22.13 and newer have SQLite built in)`,
    'better-sqlite3',
    () => require('better-sqlite3') as typeof BetterSqlite,
  ));
}

/** Whether a store can open a SQLite file here at all, without trying: node:sqlite, else better-sqlite3 installed. */
export function sqliteDriverAvailable(): boolean {
  if (builtInSqlite() !== null) return true;
  try {
    require.resolve('better-sqlite3');
    return true;
  } catch {
    return false;
  }
}

/** What a command says when it runs unrecorded for want of a driver: how to record. */
export function unrecordedLine(): string {
  return `runs are not recorded: Node ${process.version} has no built-in SQLite; to record them use Node 22.13 or newer, or run "npm install better-sqlite3@${optionalPackages['better-sqlite3']}" beside stageloop (--no-store hides this line)`;
}

/** The default driver: node:sqlite where this Node has it, else better-sqlite3 (a missing one is a one-line error). */
export function defaultDriver(): SqliteDriverName {
  return builtInSqlite() !== null ? 'node:sqlite' : 'better-sqlite3';
}

/** Opens `file` with `driver` (default: node:sqlite where Node has it, else better-sqlite3). */
export function connect(
  file: string,
  busyTimeoutMs: number,
  driver: SqliteDriverName = defaultDriver(),
): SqliteConnection {
  if (driver === 'better-sqlite3') return betterConnection(new (loadBetterSqlite())(file, { timeout: busyTimeoutMs }));
  const sqlite = builtInSqlite();
  if (sqlite === null)
    throw new StageloopError(
      'config',
      `the node:sqlite driver needs Node 22.13 or newer (this is ${process.version}): use the better-sqlite3 driver (npm install better-sqlite3@${optionalPackages['better-sqlite3']})`,
    );
  const database = new sqlite.DatabaseSync(file);
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  return nodeConnection(database);
}

function betterConnection(database: BetterSqlite.Database): SqliteConnection {
  const transaction = database.transaction((body: () => unknown) => body());
  return {
    driver: 'better-sqlite3',
    prepare: <Params extends unknown[], Row>(sql: string) =>
      database.prepare(sql) as unknown as SqliteStatement<Params, Row>,
    exec: (sql) => void database.exec(sql),
    immediate: <Result>(body: () => Result) => transaction.immediate(body) as Result,
    close: () => void database.close(),
  };
}

/** node:sqlite refuses a named parameter the statement lacks: keep only the statement's own names. */
function namedParameters(sql: string): string[] | undefined {
  const names = [...sql.matchAll(/@([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
  return names.length > 0 ? [...new Set(names)] : undefined;
}

function nodeStatement<Params extends unknown[], Row>(
  statement: NodeStatement,
  names: string[] | undefined,
  first: boolean,
): SqliteStatement<Params, Row> {
  const bind =
    names === undefined
      ? (params: unknown[]) => params
      : (params: unknown[]) => {
          const values = params[0] as Record<string, unknown>;
          return [Object.fromEntries(names.map((name) => [name, values[name]]))];
        };
  const column = (row: unknown) => (row === undefined ? undefined : Object.values(row as object)[0]);
  return {
    get: (...params) => (first ? column(statement.get(...bind(params))) : statement.get(...bind(params))) as Row,
    all: (...params) => {
      const rows = statement.all(...bind(params));
      return (first ? rows.map(column) : rows) as Row[];
    },
    run: (...params) => statement.run(...bind(params)),
    pluck: () => nodeStatement<Params, Row>(statement, names, true),
  };
}

function nodeConnection(database: NodeDatabase): SqliteConnection {
  const begin = database.prepare('BEGIN IMMEDIATE');
  const commit = database.prepare('COMMIT');
  const rollback = database.prepare('ROLLBACK');
  return {
    driver: 'node:sqlite',
    prepare: <Params extends unknown[], Row>(sql: string) =>
      nodeStatement<Params, Row>(database.prepare(sql), namedParameters(sql), false),
    exec: (sql) => database.exec(sql),
    immediate<Result>(body: () => Result): Result {
      begin.run();
      try {
        const result = body();
        commit.run();
        return result;
      } catch (error) {
        try {
          rollback.run();
        } catch {
          // SQLite already rolled back (a full disk, an I/O error): there is nothing left to undo.
        }
        throw error;
      }
    },
    close: () => database.close(),
  };
}

/** SQLite's primary result codes by number, named as better-sqlite3 names them, for node:sqlite's numeric errcode. */
const resultCodes: Record<number, string> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};

/** An error's SQLite code as better-sqlite3 names it ("SQLITE_BUSY"), from either driver; '' for anything else. */
export function sqliteCode(error: unknown): string {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === 'number') return resultCodes[errcode & 0xff] ?? `SQLITE_${errcode}`;
  return typeof code === 'string' ? code : '';
}
