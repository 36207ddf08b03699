// A run's events as Server-Sent Events: `id:` is the event's seq, so a reader that reconnects with Last-Event-ID
// gets exactly the events after it; an `end` event closes the stream when the run is over.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunStore, RunSummary } from '../store/types.js';
import type { RunEventLog } from './event-log.js';

export function streamEvents(context: Context, runId: string, log: RunEventLog, afterSeq: number): Response {
  return streamSSE(context, async (stream) => {
    const gone = new AbortController();
    stream.onAbort(() => gone.abort());
    let seq = afterSeq;
    while (!gone.signal.aborted) {
      const pending = log.after(seq);
      if (pending.length > 0) {
        for (const event of pending) {
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
          seq = event.seq;
        }
        continue;
      }
      if (log.ended) {
        await stream.writeSSE({ event: 'end', data: JSON.stringify({ runId, lastSeq: seq }) });
        return;
      }
      await log.next(gone.signal);
    }
  });
}

/** A run this server did not start (or forgot): its stored status as one event, then the end. */
export function streamStoredStatus(context: Context, runId: string, status: string): Response {
  return streamSSE(context, async (stream) => {
    await stream.writeSSE({ event: 'stored', data: JSON.stringify({ runId, status, live: false }) });
    await stream.writeSSE({ event: 'end', data: JSON.stringify({ runId, lastSeq: 0 }) });
  });
}

/**
 * A run another process holds, on a store with a change feed: its stored progress as a `stored` event each time its
 * record changes (the store says when: no polling), then the end once it stops running or the reader goes.
 */
export function streamWatchedStatus(context: Context, store: RunStore & Required<Pick<RunStore, 'watch'>>, first: RunSummary): Response {
  const runId = first.runId;
  const progress = (run: RunSummary) => JSON.stringify({ runId, status: run.status, head: run.head, iterations: run.iterations, tokens: run.tokens, live: true });
  return streamSSE(context, async (stream) => {
    let wake = (): void => undefined;
    // Set at first too: a change between the read above and LISTEN is read once the feed is on.
    let changed = true;
    stream.onAbort(() => wake());
    const stop = await store.watch((id) => {
      if (id !== runId) return;
      changed = true;
      wake();
    });
    try {
      let last = first;
      await stream.writeSSE({ event: 'stored', data: progress(first) });
      while (last.status === 'running' && !stream.aborted) {
        if (!changed) await new Promise<void>((resolve) => (wake = resolve));
        changed = false;
        const run = await store.get(runId);
        if (run === undefined) break;
        if (run.head !== last.head || run.status !== last.status || run.iterations !== last.iterations) await stream.writeSSE({ event: 'stored', data: progress(run) });
        last = run;
      }
      if (!stream.aborted) await stream.writeSSE({ event: 'end', data: JSON.stringify({ runId, lastSeq: 0 }) });
    } finally {
      await stop();
    }
  });
}
