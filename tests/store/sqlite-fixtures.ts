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
