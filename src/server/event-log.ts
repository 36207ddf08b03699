// One run's events as this server saw them, numbered 1, 2, 3... so a dropped stream resumes after the last seq it got.
import type { RunEvent } from '../engine/stage.js';

/** Run events carry their own gap-free seq. */
export type SequencedEvent = RunEvent;

export class RunEventLog {
  readonly #events: SequencedEvent[] = [];
  #waiters: Array<() => void> = [];
  #ended = false;

  get ended(): boolean {
    return this.#ended;
  }

  get lastSeq(): number {
    return this.#events.length;
  }

  append(event: RunEvent): void {
    if (this.#ended) return;
    this.#events.push({ ...event, seq: this.#events.length + 1 });
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** Events with seq > afterSeq, in order. */
  after(afterSeq: number): SequencedEvent[] {
    return this.#events.slice(Math.max(0, afterSeq));
  }

  /** Resolves at the next event, at the end of the run, or when the signal aborts (a reader that went away). */
  next(signal: AbortSignal): Promise<void> {
    if (this.#ended || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
