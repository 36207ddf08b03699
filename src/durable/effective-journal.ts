// A run resumed after a cancel or a divergence leaves entries behind; this is the journal as the run actually went.
import type { Checkpoint, StoredEntry } from '../store/types.js';
import { entriesOf, entryOf, type JournalEntries, type JournalEntry } from './journal-entries.js';

interface Marker {
  seq: number;
  servedThrough: number;
}

function markers(stored: readonly StoredEntry[]): Marker[] {
  const found: Marker[] = [];
  for (const candidate of stored) {
    if (candidate.kind !== 'event') continue;
    const entry = entryOf(candidate);
    if (entry?.kind === 'event') found.push({ seq: entry.seq, servedThrough: entry.data.servedThrough });
  }
  return found;
}

/** The entries the run went through, in order, typed: at each resume, what came after the served part is dropped. */
export function effectiveJournal(stored: readonly StoredEntry[]): JournalEntry[] {
  let effective: JournalEntry[] = [];
  for (const entry of entriesOf(stored)) {
    if (entry.kind === 'event') {
      const servedThrough = entry.data.servedThrough;
      effective = effective.filter((kept) => kept.seq <= servedThrough);
    } else if (entry.kind !== 'trace') {
      // A trace entry is no call or stage of the run: nothing serves it.
      effective.push(entry);
    }
  }
  return effective;
}

/** The root span's context of the run's first trace, when a traced part of the run recorded one. */
export function firstTraceOf(stored: readonly StoredEntry[]): JournalEntries['trace'] | undefined {
  for (const candidate of stored) {
    const entry = candidate.kind === 'trace' ? entryOf(candidate) : undefined;
    if (entry?.kind === 'trace') return entry.data;
  }
  return undefined;
}

/** Checkpoints that belong to the run as it went (not to a part a resume left behind). */
export function usableCheckpoints(stored: readonly StoredEntry[], checkpoints: readonly Checkpoint[]): Checkpoint[] {
  const stale = markers(stored);
  return checkpoints.filter(
    (checkpoint) => !stale.some((marker) => checkpoint.seq > marker.servedThrough && checkpoint.seq < marker.seq),
  );
}

/**
 * Where a resume stops serving and goes live. After a crash: nowhere (everything recorded is served). After a cancel:
 * at the first call the cancel cut short, or at the start of finalize. After a failure: at the start of the stage
 * that failed, so it runs again.
 */
export function resumeCut(effective: readonly JournalEntry[], status: string): number {
  if (status !== 'cancelled' && status !== 'failed') return effective.length;
  const finalizeAt = effective.findIndex((entry) => entry.kind === 'stage' && entry.stage === null);
  const end = finalizeAt < 0 ? effective.length : finalizeAt;
  if (status === 'failed') {
    let lastStage = end - 1;
    while (lastStage >= 0 && effective[lastStage]!.kind !== 'stage') lastStage--;
    return lastStage + 1;
  }
  for (let index = 0; index < end; index++) {
    const entry = effective[index]!;
    if ((entry.kind === 'model' || entry.kind === 'tool') && entry.data.abort !== undefined)
      return entry.kind === 'tool' ? intentBefore(effective, index) : index;
  }
  return end;
}

/** A batch the cancel cut short runs again from its intent: a person cancelled it, so it is not in doubt. */
function intentBefore(effective: readonly JournalEntry[], index: number): number {
  const batch = effective[index]!;
  for (let before = index - 1; before >= 0; before--) {
    const entry = effective[before]!;
    if (entry.kind === 'stage' && entry.stage === batch.stage) break;
    if (entry.kind === 'intent' && entry.stage === batch.stage && entry.iteration === batch.iteration) return before;
  }
  return index;
}
