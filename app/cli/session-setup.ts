// What `stageloop chat` opens for its session (the runs' SQLite file), and the one-line warning for a history row
// that cannot be read.
import type { RunEvent } from '../../src/engine/stage.js';
import type { Environment } from '../../src/model/config.js';
import type { SessionScope, SessionStore } from '../../src/sessions/types.js';
import { sessionScope } from '../../src/sessions/types.js';
import { terminalSafe } from './terminal-text.js';

export interface OpenedSession {
  scope: SessionScope;
  sessions: SessionStore;
  file: string;
  close(): void;
}

/** Checks the names first (a bad one never creates a file), then opens the store file the runs use (--store, else $STAGELOOP_HOME or ./.stageloop). */
export async function openSession(flags: { session: string; user?: string }, env: Environment, path?: string): Promise<OpenedSession> {
  const scope = sessionScope(flags.session, flags.user);
  const [{ storePath }, { sqliteSessions }] = await Promise.all([import('../../src/store/location.js'), import('../../src/sessions/sqlite-sessions.js')]);
  const file = storePath({ env, ...(path !== undefined ? { path } : {}) });
  const sessions = sqliteSessions(file);
  return { scope, sessions, file, close: () => sessions.close() };
}

/** Unreadable history rows as one warning line each (the row stays); every other event goes on to `next`. */
export function sessionWarnings(stderr: NodeJS.WritableStream, next?: (event: RunEvent) => void): (event: RunEvent) => void {
  return (event) => {
    if (event.type === 'history_unreadable') stderr.write(`stageloop: warning: ${terminalSafe(String(event.data.problem))}\n`);
    else next?.(event);
  };
}
