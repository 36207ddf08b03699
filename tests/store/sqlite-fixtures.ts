// What the SQLite store's tests share: a raw connection to a store file.
import Database from 'better-sqlite3';

/** Runs `body` on a raw connection, as another program (or an older stageloop) would. */
export function raw(file: string, body: (database: Database.Database) => void): void {
  const database = new Database(file);
  try {
    body(database);
  } finally {
    database.close();
  }
}

/** A store file's tables and indexes as SQLite describes them (columns, keys, uniques), for comparing two layouts. */
export function layoutOf(database: Database.Database): Record<string, unknown> {
  const objects = database
    .prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all() as { type: string; name: string }[];
  return Object.fromEntries(
    objects.map(({ type, name }) => {
      if (type !== 'table')
        return [
          `${type} ${name}`,
          { columns: database.prepare('SELECT name, desc FROM pragma_index_xinfo(?) WHERE key = 1').all(name) },
        ];
      const sql = database.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string;
      const columns = database
        .prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)')
        .all(name);
      const unique = database
        .prepare('SELECT origin, "unique" FROM pragma_index_list(?) WHERE origin != \'c\' ORDER BY origin')
        .all(name);
      return [`${type} ${name}`, { columns, unique, withoutRowid: /WITHOUT ROWID/i.test(sql) }];
    }),
  );
}
