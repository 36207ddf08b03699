// One run's journal while it runs: serves recorded entries (resume's catch-up, replay), records new ones, and
// writes them to the store in order. A write that fails is kept and reported at the next stage boundary.
import { rejectingThrows } from '../common/promise-like.js';
import type { RunCursor } from '../engine/run-seam.js';
import type { Zone } from '../engine/stage.js';
import type { AppendOptions, Checkpoint, Claim, RunStore, StoredEntry } from '../store/types.js';
import { mismatch, type Divergence } from './divergence.js';
import { StageloopError } from '../common/stageloop-error.js';
import { isKind, toStored, type JournalEntries, type JournalEntry, type JournalKind } from './journal-entries.js';
import { MessageLog } from './message-log.js';

export { MessageLog } from './message-log.js';

export type JournalMode = 'record' | 'resume' | 'replay';

export interface JournalWriter {
  store: RunStore;
  claim: Claim;
  leaseMs: number;
  /** Who took the run up on its own (a server or worker recovering it): kept in the resume's marker. */
  recoveredBy?: string;
}

type Where = RunCursor | { zone: Zone; iteration: number; stage: string | null };

/** Before the first stage: the root span starts before any. */
const traceWhere: Where = { zone: 'setup', iteration: 0, stage: null };

export class RunJournal {
  private index = 0;
  /** Entries served out of order (plan steps side by side), ahead of `index`. */
  private readonly taken = new Set<number>();
  /** Recorded entries of other steps that are still to be served when a step's call went live. */
  private keptThrough = 0;
  private live: boolean;
  private pending: StoredEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** Writes started and not yet settled. */
  private inFlight = 0;
  private broken: unknown;
  /** A checkpoint waiting for the next write: it costs no transaction of its own. */
  private held: { checkpoint: Checkpoint; progress: { iterations: number; tokens: number } } | undefined;
  private lastServed: number;
  /** A resume writes one marker before its first new entry: entries after `servedThrough` were left behind. */
  private markerDue: boolean;
  divergence: Divergence | undefined;
  readonly messages = new MessageLog();
  /** The first trace's root span context a resume links to (set when a resume opens the journal). */
  firstTrace: JournalEntries['trace'] | undefined;

  constructor(
    readonly mode: JournalMode,
    private readonly served: readonly JournalEntry[],
    /** The store's head: new entries follow it. */
    private head: number,
    /** Where served entries start: the checkpoint the run continues from. */
    startSeq: number,
    private readonly writer: JournalWriter | undefined,
  ) {
    this.live = mode === 'record';
    this.lastServed = startSeq;
    this.markerDue = mode === 'resume';
  }

  /** The next recorded entry of this kind at this place, while catching up or replaying; undefined once live. */
  serve<Kind extends JournalKind>(
    kind: Kind,
    where: Where,
    check?: (entry: JournalEntry<Kind>) => Divergence | undefined,
    /** An entry the recording may not have (an intent, which older recordings lack): its absence is no divergence. */
    optional = false,
  ): JournalEntry<Kind> | undefined {
    if (this.live) return undefined;
    const position = this.positionOf(kind, where);
    const entry = this.served[position];
    if (
      entry === undefined ||
      !isKind(entry, kind) ||
      entry.zone !== where.zone ||
      entry.iteration !== where.iteration ||
      entry.stage !== where.stage
    ) {
      if (optional) return undefined;
      // A resume after a crash mid-stage: this step's call was never recorded, but the other steps' calls were
      // and are still to be served. Only this call goes live; what the others recorded stays the run's history.
      const group = this.mode === 'resume' ? this.groupEnd(where) : undefined;
      if (group !== undefined) {
        this.keptThrough = Math.max(this.keptThrough, group);
        return undefined;
      }
      return this.diverge(mismatch(kind, where, entry), entry === undefined);
    }
    const difference = check?.(entry);
    if (difference !== undefined) return this.diverge(difference, false);
    if (position === this.index) {
      this.index += 1;
      while (this.taken.delete(this.index)) this.index += 1;
      this.lastServed = this.served[this.index - 1]!.seq;
    } else {
      this.taken.add(position);
    }
    return entry;
  }

  /** The seq of the last unserved entry of other steps in this step's stage, if any remain. */
  private groupEnd(where: Where): number | undefined {
    if (where.stage === null || !where.stage.includes('#')) return undefined;
    const base = where.stage.slice(0, where.stage.indexOf('#') + 1);
    let last: number | undefined;
    for (let position = this.index; position < this.served.length; position++) {
      const entry = this.served[position]!;
      if (
        entry.zone !== where.zone ||
        entry.iteration !== where.iteration ||
        entry.stage === null ||
        !entry.stage.startsWith(base)
      )
        break;
      if (!this.taken.has(position)) last = entry.seq;
    }
    return last;
  }

  /**
   * Where the entry for this call is: the next one, or, for a plan step running beside others (its stage reads
   * "act#b"), the first unserved entry of that step in the same stage: steps record in the order their calls
   * finished, and each step's own calls are in order.
   */
  private positionOf(kind: JournalKind, where: Where): number {
    const next = this.served[this.index];
    if (
      next === undefined ||
      (next.kind === kind && next.stage === where.stage) ||
      where.stage === null ||
      !where.stage.includes('#')
    )
      return this.index;
    const base = where.stage.slice(0, where.stage.indexOf('#'));
    for (let position = this.index; position < this.served.length; position++) {
      const entry = this.served[position]!;
      if (
        entry.zone !== where.zone ||
        entry.iteration !== where.iteration ||
        entry.stage === null ||
        !entry.stage.startsWith(`${base}#`)
      )
        break;
      if (!this.taken.has(position) && entry.kind === kind && entry.stage === where.stage) return position;
    }
    return this.index;
  }

  /** The entry after the last one served, without taking it. */
  peek(): JournalEntry | undefined {
    return this.live ? undefined : this.served[this.index];
  }

  /** The entry `serve(kind, where)` would take next (a plan step's own, wherever the other steps' are), untaken. */
  peekFor(kind: JournalKind, where: Where): JournalEntry | undefined {
    if (this.live) return undefined;
    const entry = this.served[this.positionOf(kind, where)];
    return entry?.kind === kind && entry.stage === where.stage ? entry : this.served[this.index];
  }

  get isLive(): boolean {
    return this.live;
  }

  /** No write has failed so far (a failed one ends the run at its next stage boundary). */
  get healthy(): boolean {
    return this.broken === undefined;
  }

  record<Kind extends JournalKind>(kind: Kind, where: Where, data: JournalEntries[Kind]): void {
    if (this.writer === undefined) return;
    if (this.markerDue) {
      this.markerDue = false;
      this.push('event', where, {
        type: 'resumed',
        epoch: this.writer.claim.epoch,
        servedThrough: Math.max(this.lastServed, this.keptThrough),
        ...(this.writer.recoveredBy !== undefined && { recoveredBy: this.writer.recoveredBy }),
      });
    }
    this.push(kind, where, data);
  }

  /**
   * Keeps the root span's context of the run's first trace; only a fresh recording writes it (a resume that finds
   * none was not traced first, and its link would point at itself).
   */
  recordTrace(root: JournalEntries['trace']): void {
    if (this.mode === 'record' && this.writer !== undefined) this.push('trace', traceWhere, root);
  }

  get lastSeq(): number {
    return this.head;
  }

  /**
   * Keeps a checkpoint at the current head for the next write (a completed call flushes at once), so a turn costs
   * its calls' transactions and no more; a checkpoint lost to a crash only means a resume serves more of the journal.
   */
  hold(checkpoint: Omit<Checkpoint, 'seq'>, progress: { iterations: number; tokens: number }): void {
    if (this.writer === undefined) return;
    this.held = { checkpoint: { ...checkpoint, seq: this.head }, progress };
  }

  /** Writes what is pending (with a held checkpoint); never rejects: a failure is kept for `check()`. */
  flush(): Promise<void> {
    const writer = this.writer;
    const held = this.held;
    if (writer === undefined || this.broken !== undefined || (this.pending.length === 0 && held === undefined))
      return this.writing;
    const entries = this.pending;
    this.pending = [];
    this.held = undefined;
    const options: AppendOptions = { leaseMs: writer.leaseMs };
    if (held !== undefined) [options.checkpoint, options.progress] = [held.checkpoint, held.progress];
    const append = () => writer.store.append(writer.claim, entries, options);
    // Writes go one at a time, in order; with none in flight this one starts at once, a promise hop sooner.
    const started = this.inFlight === 0 ? rejectingThrows(append) : this.writing.then(append);
    this.inFlight += 1;
    this.writing = started.then(
      () => void (this.inFlight -= 1),
      (error: unknown) => {
        this.inFlight -= 1;
        this.broken ??= error;
      },
    );
    return this.writing;
  }

  /** Throws the store's failure, if a write failed: the run must not go on without durability. */
  check(): void {
    if (this.broken !== undefined) throw this.broken;
  }

  private push<Kind extends JournalKind>(kind: Kind, where: Where, data: JournalEntries[Kind]): void {
    this.head += 1;
    this.pending.push(
      toStored({
        seq: this.head,
        kind,
        zone: where.zone,
        iteration: where.iteration,
        stage: where.stage,
        at: Date.now(),
        data,
      }),
    );
  }

  private diverge(divergence: Divergence, recordingEnded: boolean): undefined {
    if (this.mode === 'replay') {
      this.divergence ??= divergence;
      throw new StageloopError('internal', divergence.message);
    }
    // A resume whose catch-up ran out, or found the code doing something else, goes on live from here.
    if (!recordingEnded) this.divergence ??= divergence;
    this.live = true;
    return undefined;
  }
}
