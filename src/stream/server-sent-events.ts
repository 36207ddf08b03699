// toServerSentEvents(): a run's stream as a text/event-stream body (`id:` is the event's seq), for any HTTP server.
import { ReadableStream } from 'node:stream/web';
import type { RunStream } from './stream-run.js';

export interface ServerSentEventsOptions {
  /** Start after this seq, e.g. the Last-Event-ID a reconnecting browser sends (default 0: every event). */
  after?: number;
  /** Cancel the run when the body is closed before the run ends, e.g. the client went away (default true). */
  cancelRunOnClose?: boolean;
}

/** The headers a text/event-stream response should carry. */
export const serverSentEventsHeaders: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
});

/** One `id:` / `event:` / `data:` block per event; JSON text never holds a raw newline, so data is one line. */
export function toServerSentEvents(stream: RunStream, options: ServerSentEventsOptions = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const cancelRunOnClose = options.cancelRunOnClose ?? true;
  const events = stream.eventsAfter(options.after ?? 0, { cancelOnBreak: false })[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await events.next();
      if (next.done) {
        controller.close();
        return;
      }
      const event = next.value;
      controller.enqueue(encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
    },
    cancel() {
      // Directly, not through the reader: a reader waiting for the next event would only see the cancel after it.
      if (cancelRunOnClose) stream.cancel('the event-stream body was closed before the run ended');
      void events.return?.();
    },
  });
}
