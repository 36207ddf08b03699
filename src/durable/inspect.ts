// Reading recorded runs back: the list, and one run with its journal as it went and its checkpoints.
import type { Checkpoint, RunStore, RunSummary, StoredRunStatus } from '../store/types.js';
import { runNotFound } from '../store/types.js';
import { effectiveJournal } from './effective-journal.js';
import type { JournalEntry } from './journal-entries.js';

export function listRuns(
  store: RunStore,
  filter: { status?: StoredRunStatus; limit?: number } = {},
): Promise<RunSummary[]> {
  return store.list(filter);
}

export interface LoadedRun {
  run: RunSummary;
  /** The journal as the run went (parts a resume left behind are dropped). */
  journal: JournalEntry[];
  checkpoints: Checkpoint[];
}

export async function loadRun(store: RunStore, runId: string): Promise<LoadedRun> {
  const run = await store.get(runId);
  if (run === undefined) throw runNotFound(runId);
  const [entries, checkpoints] = await Promise.all([store.journal(runId), store.checkpoints(runId)]);
  return { run, journal: effectiveJournal(entries), checkpoints };
}
