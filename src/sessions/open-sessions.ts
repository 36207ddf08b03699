// The session store of a store location: the runs' SQLite file, or their PostgreSQL schema. Redis keeps no sessions:
// runs kept there have theirs where a worker keeps them, in this environment's own default location.
import { StageloopError } from '../common/stageloop-error.js';
import { storeDisplayName, storeKind, storePath, type StoreLocation } from '../store/location.js';
import type { SessionStore } from './types.js';

export async function openSessionStore(location: StoreLocation): Promise<SessionStore> {
  const kind = storeKind(location);
  if (kind === 'redis') {
    const beside: StoreLocation = { env: location.env, ...(location.cwd !== undefined && { cwd: location.cwd }) };
    if (location.path !== undefined && storeKind(beside) !== 'redis') return openSessionStore(beside);
    throw new StageloopError(
      'config',
      `sessions are kept in SQLite or PostgreSQL, not in Redis (${storeDisplayName(location)}): set STAGELOOP_HOME for them, or pass --store FILE or --store postgres://... with --session`,
    );
  }
  if (kind === 'postgres') return (await import('./postgres-sessions.js')).postgresSessions(storePath(location));
  return (await import('./sqlite-sessions.js')).sqliteSessions(storePath(location));
}
