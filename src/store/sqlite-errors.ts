// What went wrong with a SQLite store, as one store error line that names the file, the reason and the fix.
import { openSync, closeSync, statfsSync } from 'node:fs';
import { messageOf } from '../common/error-message.js';
import { isStageloopError, StageloopError } from '../common/stageloop-error.js';
import { sqliteCode } from './sqlite-driver.js';

const damaged = 'move it away (the next run then starts a new store) or pass another --store path';

/** Why the store cannot be written, asked of the file system itself: the database file and its WAL beside it. */
function whyUnwritable(file: string): string {
  try {
    if (statfsSync(file).bavail === 0) return 'the disk is full';
  } catch {
    return 'the file was removed';
  }
  for (const path of [file, `${file}-wal`]) {
    try {
      closeSync(openSync(path, 'r+'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPERM' || code === 'EACCES' || code === 'EROFS') return `${path} is read-only (${code})`;
      if (code !== 'ENOENT') return messageOf(error);
    }
  }
  return 'the disk refused the write';
}

export function storeFailure(file: string, error: unknown, busyTimeoutMs: number): StageloopError {
  if (isStageloopError(error)) return error;
  const code = sqliteCode(error);
  const message = messageOf(error);
  let text: string;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    text = `store ${file} is locked by another process (waited ${busyTimeoutMs} ms): try again once it is done`;
  } else if (code === 'SQLITE_FULL') {
    text = `store ${file}: the disk is full: free some space, then resume the run`;
  } else if (code.startsWith('SQLITE_READONLY')) {
    text = `store ${file} cannot be written: ${whyUnwritable(file)} (${message}): make it writable, then resume the run`;
  } else if (code.startsWith('SQLITE_IOERR')) {
    text = `store ${file} cannot be written: ${whyUnwritable(file)} (${message}): fix that, then resume the run`;
  } else if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    text = `${file} is not a stageloop store or is damaged (${message}): ${damaged}`;
  } else if (code.startsWith('SQLITE_CANTOPEN')) {
    text = `cannot open store ${file} (${message}): check the path and its permissions`;
  } else if (/Could not locate the bindings file|ERR_DLOPEN_FAILED|NODE_MODULE_VERSION/.test(`${code} ${message}`)) {
    // The native addon was not built (an install with --ignore-scripts) or was built for another Node.
    text = `cannot open store ${file}: better-sqlite3's native addon is missing or built for another Node (${message.split('\n')[0]}): run "npm rebuild better-sqlite3", or pass --no-store`;
  } else if (/no such (table|column)/.test(message)) {
    text = `${file} does not have the tables of a stageloop store (${message}): ${damaged}`;
  } else {
    text = `store ${file}: ${message}`;
  }
  return new StageloopError('store', text, { cause: error });
}
