/** @module stageloop/durable */
// 'stageloop/durable': runs recorded in SQLite (or PostgreSQL, by URL), resumed after a crash or cancel, replayed
// offline, inspected; SQLite session stores. The SQLite binding (better-sqlite3, an optional package) loads on first use.
export { sqliteStore, type SqliteStoreOptions } from '../store/sqlite-store.js';
export { openStore, storePath, makeOwner, storeFileName, type StoreLocation } from '../store/location.js';
export { resumeRun, type ResumeOptions } from '../durable/durable-run.js';
export { replayRun, type ReplayOptions, type ReplayReport } from '../durable/replay.js';
export { listRuns, loadRun, type LoadedRun } from '../durable/inspect.js';
export type { Divergence, DivergenceKind } from '../durable/divergence.js';
export type { RunSeam, RunStart, RunCursor, RunPosition } from '../engine/run-seam.js';
export type { JournalEntries, JournalEntry, JournalKind, RecordedCheckpoint } from '../durable/journal-entries.js';
export { sqliteSessions, type SqliteSessionsOptions } from '../sessions/sqlite-sessions.js';
export { createSessionStore, type SessionTables, type TurnRow, type FactRow } from '../sessions/session-store.js';
// What a store adapter implements: the RunStore port's records, its claims and its errors (RunStore itself and
// memoryStore are in the root entry).
export {
  RunExistsError,
  RunBusyError,
  RunFinishedError,
  type RunHeader,
  type RunOutcomeRecord,
  type StoredRunStatus,
  type Owner,
  type Claim,
  type ClaimOptions,
  type AppendOptions,
  type StoredEntry,
  type StoredPosition,
  type Checkpoint,
} from '../store/types.js';
export type { StoreClock } from '../store/run-store.js';
export {
  sessionScope,
  type SessionScope,
  type SessionHistory,
  type TurnRecord,
  type NewTurn,
} from '../sessions/types.js';
