// What `stageloop chat` opens for its session (the runs' SQLite file or PostgreSQL schema), and the one-line warning for a history row
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

/**
 * Checks the names first (a bad one never creates a file), then opens the store the runs use (--store, else
 * $STAGELOOP_STORE, $STAGELOOP_HOME or ./.stageloop): its SQLite file or its PostgreSQL schema.
 */
export async function openSession(
  flags: { session: string; user?: string },
  env: Environment,
  path?: string,
): Promise<OpenedSession> {
  const scope = sessionScope(flags.session, flags.user);
  const [{ storeDisplayName }, { openSessionStore }] = await Promise.all([
    import('../../src/store/location.js'),
    import('../../src/sessions/open-sessions.js'),
  ]);
  const location = { env, ...(path !== undefined ? { path } : {}) };
  const sessions = await openSessionStore(location);
  return { scope, sessions, file: storeDisplayName(location), close: () => sessions.close() };
}

/** Unreadable history rows as one warning line each (the row stays); every other event goes on to `next`. */
export function sessionWarnings(
  stderr: NodeJS.WritableStream,
  next?: (event: RunEvent) => void,
): (event: RunEvent) => void {
  return (event) => {
    if (event.type === 'history_unreadable')
      stderr.write(`stageloop: warning: ${terminalSafe(String(event.data.problem))}\n`);
    else next?.(event);
  };
}
