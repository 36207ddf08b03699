// A run's events as Server-Sent Events: `id:` is the event's seq, so a reader that reconnects with Last-Event-ID
// gets exactly the events after it; an `end` event closes the stream when the run is over.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
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
