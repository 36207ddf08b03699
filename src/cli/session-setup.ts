// What a CLI run with --session adds: the session store (the runs' SQLite file), the remember tool, and a
// one-line warning for a history row that cannot be read.
import { StageloopError } from '../common/stageloop-error.js';
import type { Deps, RunEvent } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import type { SessionScope, SessionStore } from '../sessions/types.js';
import { sessionScope } from '../sessions/types.js';
import { rememberTool } from '../tools/remember.js';
import { ToolRegistry } from '../tools/registry.js';
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
export async function openSession(flags: { session: string; user?: string }, env: Environment, path?: string): Promise<OpenedSession> {
  const scope = sessionScope(flags.session, flags.user);
  const { storeKind, storePath, storeDisplayName } = await import('../store/location.js');
  const location = { env, ...(path !== undefined ? { path } : {}) };
  const kind = storeKind(location);
  if (kind === 'redis') throw new StageloopError('config', `sessions are kept in SQLite or PostgreSQL, not in Redis (${storeDisplayName(location)}): pass --store FILE or --store postgres://... with --session`);
  const sessions = kind === 'postgres' ? (await import('../sessions/postgres-sessions.js')).postgresSessions(storePath(location)) : (await import('../sessions/sqlite-sessions.js')).sqliteSessions(storePath(location));
  return { scope, sessions, file: storeDisplayName(location), close: () => sessions.close() };
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
