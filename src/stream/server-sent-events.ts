// toServerSentEvents(): a run's stream as a text/event-stream body (`id:` is the event's seq), for any HTTP server.
// The server's event endpoints write through eventStreamBody() too: one writer, one format.
import type { RunEvent } from '../engine/stage.js';
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

/**
 * One `id:` / `event:` / `data:` block; JSON text never holds a raw newline, so data is one line. Without `event`
 * it is a bare `data:` block, as protocols that name no events (Chat Completions chunks) send them.
 */
export function serverSentEvent(block: { id?: number; event?: string; data: unknown }): string {
  return `${block.id === undefined ? '' : `id: ${block.id}\n`}${block.event === undefined ? '' : `event: ${block.event}\n`}data: ${JSON.stringify(block.data)}\n\n`;
}

/** A `data:` block of one line of text as it is, not JSON: a protocol's end marker such as `[DONE]`. */
export function serverSentText(line: string): string {
  if (/[\r\n]/.test(line)) throw new TypeError('an event-stream data line holds no line break');
  return `data: ${line}\n\n`;
}

/** A run event as its block: `id:` is its seq, `event:` its type. */
export const serverSentEventOf = (event: RunEvent): string =>
  serverSentEvent({ id: event.seq, event: event.type, data: event });

export interface EventStreamBodyOptions {
  /** Written once the events end (not when the body is closed early): an `end` block, say. */
  trailer?: () => string;
  /** Called when the reader closes the body before the events ended. */
  onClose?: () => void;
}

/** Any blocks of text (a run's events, a feed of changes) as a text/event-stream body read at the reader's pace. */
export function eventStreamBody(
  blocks: AsyncIterator<string>,
  options: EventStreamBodyOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await blocks.next();
      if (!next.done) {
        controller.enqueue(encoder.encode(next.value));
        return;
      }
      if (options.trailer !== undefined) controller.enqueue(encoder.encode(options.trailer()));
      controller.close();
    },
    cancel() {
      // Directly, not through the reader: a reader waiting for the next event would only see the cancel after it.
      options.onClose?.();
      void blocks.return?.();
    },
  });
}

/** Run events as SSE blocks, each with its seq as `id:`. */
export async function* blocksOf(events: AsyncIterable<RunEvent>): AsyncGenerator<string, void, undefined> {
  for await (const event of events) yield serverSentEventOf(event);
}

export function toServerSentEvents(
  stream: RunStream,
  options: ServerSentEventsOptions = {},
): ReadableStream<Uint8Array> {
  const cancelRunOnClose = options.cancelRunOnClose ?? true;
  const events = stream.eventsAfter(options.after ?? 0, { cancelOnBreak: false });
  return eventStreamBody(blocksOf(events), {
    ...(cancelRunOnClose && { onClose: () => stream.cancel('the event-stream body was closed before the run ended') }),
  });
}
