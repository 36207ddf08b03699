// Every event of one run, kept in order so each reader reads at its own pace from any seq: the run never waits for one.
// The events keep the seq the run gave them (1, 2, 3... with no gap), so seq n sits at index n - 1: never renumbered.
import type { RunEvent } from '../engine/stage.js';

export class EventLog {
  readonly events: RunEvent[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private waiters: Array<() => void> = [];

  push(event: RunEvent): void {
    if (this.ended) return;
    this.events.push(event);
    if (event.type === 'run_finished') this.ended = true;
    this.wake();
  }

  /** No event comes after this; `error` makes readers throw once they have read what came before. */
  end(error?: { error: unknown }): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.wake();
  }

  get done(): boolean {
    return this.ended;
  }

  /** The seq of the latest event (0 before the first). */
  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /** Resolves when an event is added or the log ends, or when the signal aborts (a reader that went away). */
  changed(signal?: AbortSignal): Promise<void> {
    if (signal === undefined) return new Promise<void>((resolve) => this.waiters.push(resolve));
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Every event whose seq is above `after`, as they come, ending with the log or when the signal aborts. */
  async *read(after: number, signal?: AbortSignal): AsyncGenerator<RunEvent, void, undefined> {
    const events = this.events;
    let index = Math.max(0, after);
    for (;;) {
      while (index < events.length) {
        if (signal?.aborted) return;
        yield events[index++]!;
      }
      if (this.ended || signal?.aborted) return;
      await this.changed(signal);
    }
  }

  /** Throws the run's failure to a reader that has read every event, when the run rejected. */
  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }

  private wake(): void {
    const waiters = this.waiters;
    if (waiters.length === 0) return;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
