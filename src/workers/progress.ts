// A run's events as BullMQ job progress, coarsely: events are gathered and sent as one `{ events: [...] }` update at
// most every `intervalMs` (and at the end of the job), instead of one Redis script call per event, which cost more
// Redis work than the run's journal writes. `stageloop submit` unpacks the batches.
import type { RunEvent } from '../engine/stage.js';

/** One event as JSON only, small. */
export function progressOf(event: RunEvent): Record<string, unknown> {
  return {
    type: event.type,
    zone: event.zone,
    stage: event.stage,
    iteration: event.iteration,
    at: event.at,
    data: JSON.parse(JSON.stringify(event.data ?? {})) as unknown,
  };
}

export interface ProgressBatch {
  events: Array<Record<string, unknown>>;
}

/** The events inside a progress update: a batch, or (from an older worker) one event. */
export function eventsOfProgress(data: unknown): Array<Record<string, unknown>> {
  if (typeof data !== 'object' || data === null) return [];
  const events = (data as Partial<ProgressBatch>).events;
  return Array.isArray(events) ? events : [data as Record<string, unknown>];
}

export interface ProgressSender {
  onEvent(event: RunEvent): void;
  /** Sends what is gathered now; resolves when it has been sent (or failed: progress is best effort). */
  flush(): Promise<void>;
}

export function batchedProgress(send: (batch: ProgressBatch) => Promise<unknown>, intervalMs = 250): ProgressSender {
  let gathered: Array<Record<string, unknown>> = [];
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<unknown> = Promise.resolve();
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (gathered.length === 0) return sending.then(() => undefined);
    const events = gathered;
    gathered = [];
    sending = sending.then(() => send({ events })).catch(() => undefined);
    return sending.then(() => undefined);
  };
  return {
    onEvent(event) {
      gathered.push(progressOf(event));
      timer ??= setTimeout(() => void flush(), intervalMs);
    },
    flush,
  };
}
