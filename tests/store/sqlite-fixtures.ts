// What the SQLite store's tests share: the drivers this Node can run (each suite runs once per driver, and says why
// it skips one), and a raw connection to a store file.
import { describe, it } from 'vitest';
import {
  betterSqliteLoads,
  builtInSqlite,
  connect,
  type SqliteConnection,
  type SqliteDriverName,
} from '../../src/store/sqlite-driver.js';

/** Why a driver cannot run under this Node, or undefined when it can. */
export function whyNot(driver: SqliteDriverName): string | undefined {
  if (driver === 'node:sqlite')
    return builtInSqlite() === null
      ? `Node ${process.version} has no node:sqlite (22.13 and newer have it)`
      : undefined;
  // Its native addon is built once, by this repository's npm ci, for the Node that ran it (20 in CI).
  return betterSqliteLoads()
    ? undefined
    : `better-sqlite3's native addon here is built for another Node than ${process.version}: node:sqlite is the driver this Node runs`;
}

export const drivers: readonly SqliteDriverName[] = ['node:sqlite', 'better-sqlite3'];

/** Declares `suite` once for each driver: a driver this Node cannot run shows as one skipped test saying why. */
export function eachDriver(title: string, suite: (driver: SqliteDriverName) => void): void {
  for (const driver of drivers) {
    const reason = whyNot(driver);
    if (reason === undefined) describe(`${title} (${driver})`, () => suite(driver));
    else describe(`${title} (${driver})`, () => it.skip(reason, () => undefined));
  }
}

/** Runs `body` on a raw connection, as another program (or an older stageloop) would. */
export function raw(file: string, body: (database: SqliteConnection) => void, driver?: SqliteDriverName): void {
  const database = connect(file, 5_000, driver);
  try {
    body(database);
  } finally {
    database.close();
  }
}

/** A pragma's value, as `PRAGMA name` answers it. */
export function pragma(database: SqliteConnection, name: string): unknown {
  return database.prepare(`PRAGMA ${name}`).pluck().get();
}

/** A store file's tables and indexes as SQLite describes them (columns, keys, uniques), for comparing two layouts. */
export function layoutOf(database: SqliteConnection): Record<string, unknown> {
  const plain = (rows: unknown[]) => rows.map((row) => ({ ...(row as object) }));
  const objects = database
    .prepare<[], { type: string; name: string }>(
      "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all();
  return Object.fromEntries(
    objects.map(({ type, name }) => {
      if (type !== 'table')
        return [
          `${type} ${name}`,
          {
            columns: plain(
              database.prepare<[string]>('SELECT name, desc FROM pragma_index_xinfo(?) WHERE key = 1').all(name),
            ),
          },
        ];
      const sql = database.prepare<[string], string>('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name)!;
      const columns = database
        .prepare<[string]>('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)')
        .all(name);
      const unique = database
        .prepare<[string]>('SELECT origin, "unique" FROM pragma_index_list(?) WHERE origin != \'c\' ORDER BY origin')
        .all(name);
      return [
        `${type} ${name}`,
        { columns: plain(columns), unique: plain(unique), withoutRowid: /WITHOUT ROWID/i.test(sql) },
      ];
    }),
  );
}
