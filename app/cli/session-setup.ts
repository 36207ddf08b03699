// What a CLI run with --session adds: the session store (the runs' SQLite file), the remember tool, and a
// one-line warning for a history row that cannot be read.
import type { Deps, RunEvent } from '../../src/engine/stage.js';
import type { Environment } from '../../src/model/config.js';
import type { SessionScope, SessionStore } from '../../src/sessions/types.js';
import { sessionScope } from '../../src/sessions/types.js';
import { rememberTool } from '../../src/tools/remember.js';
import { ToolRegistry } from '../../src/tools/registry.js';
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

/** The run's deps with the session store, and unreadable-row warnings printed even when progress is not. */
export function sessionDeps(deps: Partial<Deps>, opened: OpenedSession, stderr: NodeJS.WritableStream): Partial<Deps> {
  return { ...deps, sessions: opened.sessions, onEvent: sessionWarnings(stderr, deps.onEvent) };
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
