// One run's journal while it runs: serves recorded entries (resume's catch-up, replay), records new ones, and
// writes them to the store in order. A write that fails is kept and reported at the next stage boundary.
import type { JsonObject, JsonValue } from '../common/json.js';
import type { RunCursor } from '../engine/run-seam.js';
import type { Checkpoint, Claim, JournalEntry, JournalKind, RunStore } from '../store/types.js';
import { ReplayDiverged, mismatch, type Divergence } from './divergence.js';

export type JournalMode = 'record' | 'resume' | 'replay';

export interface JournalWriter {
  store: RunStore;
  claim: Claim;
  leaseMs: number;
}

type Where = RunCursor | { zone: 'setup' | 'iteration' | 'finalize'; iteration: number; stage: string | null };

export class RunJournal {
  private index = 0;
  private live: boolean;
  private pending: JournalEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private broken: unknown;
  /** A checkpoint waiting for the next write: it costs no transaction of its own. */
  private held: { checkpoint: Checkpoint; progress: { iterations: number; tokens: number } } | undefined;
  private lastServed: number;
  /** A resume writes one marker before its first new entry: entries after `servedThrough` were left behind. */
  private markerDue: boolean;
  divergence: Divergence | undefined;
  readonly messages = new MessageLog();

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
  serve(kind: JournalKind, where: Where, check?: (entry: JournalEntry) => Divergence | undefined): JournalEntry | undefined {
    if (this.live) return undefined;
    const entry = this.served[this.index];
    if (entry === undefined || entry.kind !== kind || entry.zone !== where.zone || entry.iteration !== where.iteration || entry.stage !== where.stage) {
      return this.diverge(mismatch(kind, where, entry), entry === undefined);
    }
    const difference = check?.(entry);
    if (difference !== undefined) return this.diverge(difference, false);
    this.index += 1;
    this.lastServed = entry.seq;
    return entry;
  }

  /** The entry after the last one served, without taking it. */
  peek(): JournalEntry | undefined {
    return this.live ? undefined : this.served[this.index];
  }

  get isLive(): boolean {
    return this.live;
  }

  record(kind: JournalKind, where: Where, data: JsonValue): void {
    if (this.writer === undefined) return;
    if (this.markerDue) {
      this.markerDue = false;
      this.push('event', where, { type: 'resumed', epoch: this.writer.claim.epoch, servedThrough: this.lastServed });
    }
    this.push(kind, where, data);
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
    if (writer === undefined || this.broken !== undefined || (this.pending.length === 0 && held === undefined)) return this.writing;
    const entries = this.pending;
    this.pending = [];
    this.held = undefined;
    const options = { leaseMs: writer.leaseMs, ...(held ? { checkpoint: held.checkpoint, progress: held.progress } : {}) };
    this.writing = this.writing.then(() => writer.store.append(writer.claim, entries, options)).catch((error: unknown) => {
      this.broken ??= error;
    });
    return this.writing;
  }

  /** Throws the store's failure, if a write failed: the run must not go on without durability. */
  check(): void {
    if (this.broken !== undefined) throw this.broken;
  }

  private push(kind: JournalKind, where: Where, data: JsonValue): void {
    this.head += 1;
    this.pending.push({ seq: this.head, kind, zone: where.zone, iteration: where.iteration, stage: where.stage, at: Date.now(), data });
  }

  private diverge(divergence: Divergence, recordingEnded: boolean): undefined {
    if (this.mode === 'replay') {
      this.divergence ??= divergence;
      throw new ReplayDiverged(divergence);
    }
    // A resume whose catch-up ran out, or found the code doing something else, goes on live from here.
    if (!recordingEnded) this.divergence ??= divergence;
    this.live = true;
    return undefined;
  }
}

/**
 * Model requests repeat the conversation so far: each is stored as how many messages it shares with the previous
 * one plus the new ones, so a long run's journal grows with the conversation, not with its square. Shared means the
 * very same message objects: a stage replaces a message to change it, never edits it in place (prune does so), so
 * recording a request costs no JSON text of the conversation.
 */
export class MessageLog {
  /** The previous request's messages: the live objects while recording, their copies when read back. */
  private previous: readonly JsonValue[] = [];

  compress(request: JsonObject): JsonObject {
    const messages = (request.messages ?? []) as JsonValue[];
    const previous = this.previous;
    let prefix = 0;
    while (prefix < messages.length && prefix < previous.length && messages[prefix] === previous[prefix]) prefix++;
    this.previous = messages;
    return { ...request, messages: messages.slice(prefix), prefix };
  }

  /** The whole request of a stored one, in journal order. */
  expand(stored: JsonObject): JsonObject {
    const whole = this.preview(stored);
    this.previous = whole.messages as JsonValue[];
    return whole;
  }

  /** The whole request, without moving on (to compare it, or to show a divergence). */
  preview(stored: JsonObject): JsonObject {
    const prefix = typeof stored.prefix === 'number' ? stored.prefix : 0;
    const { prefix: _prefix, ...rest } = stored;
    return { ...rest, messages: this.previous.slice(0, prefix).concat((stored.messages ?? []) as JsonValue[]) };
  }
}
