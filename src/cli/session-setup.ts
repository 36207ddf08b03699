// What a CLI run with --session adds: the session store (the runs' SQLite file), the recorded-run store, the
// remember tool, and a one-line warning for a history row that cannot be read.
import type { RunEvent } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import type { SessionScope, SessionStore } from '../sessions/types.js';
import { sessionScope } from '../sessions/types.js';
import type { RunStore } from '../store/types.js';
import { rememberTool } from '../tools/remember.js';
import { ToolRegistry } from '../tools/registry.js';
import { terminalSafe } from './terminal-text.js';

export interface OpenedSession {
  scope: SessionScope;
  sessions: SessionStore;
  /** Every turn is a recorded run in the same file. */
  runs: RunStore;
  file: string;
  close(): void;
}

/** Checks the names first (a bad one never creates a file), then opens the store at $STAGELOOP_HOME or ./.stageloop. */
export async function openSession(flags: { session: string; user?: string }, env: Environment): Promise<OpenedSession> {
  const scope = sessionScope(flags.session, flags.user);
  const [{ storePath }, { sqliteStore }, { sqliteSessions }] = await Promise.all([
    import('../store/location.js'),
    import('../store/sqlite-store.js'),
    import('../sessions/sqlite-sessions.js'),
  ]);
  const file = storePath({ env });
  const sessions = sqliteSessions(file);
  const runs = sqliteStore(file);
  return { scope, sessions, runs, file, close: () => (sessions.close(), runs.close()) };
}

/** Unreadable history rows as one warning line each (the row stays); every other event goes on to `next`. */
export function sessionWarnings(stderr: NodeJS.WritableStream, next?: (event: RunEvent) => void): (event: RunEvent) => void {
  return (event) => {
    if (event.type === 'history_unreadable') stderr.write(`stageloop: warning: ${terminalSafe(String(event.data.problem))}\n`);
    else next?.(event);
  };
}

/** The same tools and settings, plus `remember`: the model may keep facts only in a session. */
export function withRemember(tools: ToolRegistry): ToolRegistry {
  return new ToolRegistry([...tools.names.map((name) => tools.get(name)!), rememberTool()], tools.options);
}
