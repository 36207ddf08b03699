// Every event of one run, kept in order so each reader reads at its own pace from any seq: the run never waits for one.
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

  /** Resolves when an event is added or the log ends. */
  changed(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
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
