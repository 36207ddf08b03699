// A run's events as Server-Sent Events: `id:` is the event's seq, so a reader that reconnects with Last-Event-ID
// gets exactly the events after it; an `end` event closes the stream when the run is over.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunStore, RunSummary } from '../store/types.js';
import type { RunHost } from './run-host.js';
import { listItemOf } from './run-view.js';
import type { EventLog } from '../stream/event-log.js';
import { eventStreamBody, serverSentEvent, serverSentEventOf, serverSentEventsHeaders } from '../stream/server-sent-events.js';

/** The events after `afterSeq` with the seq the run gave them, then `end` once the run is over; written by src/stream. */
export function streamEvents(runId: string, log: EventLog, afterSeq: number): Response {
  const gone = new AbortController();
  async function* blocks(): AsyncGenerator<string, void, undefined> {
    for await (const event of log.read(afterSeq, gone.signal)) yield serverSentEventOf(event);
  }
  const body = eventStreamBody(blocks(), {
    trailer: () => serverSentEvent({ event: 'end', data: { runId, lastSeq: Math.max(afterSeq, log.lastSeq) } }),
    onClose: () => gone.abort(),
  });
  return new Response(body as unknown as ConstructorParameters<typeof Response>[0], { headers: serverSentEventsHeaders });
}

/** Each run that starts or ends in this server from now on, as a `run` event with its list item, until the reader goes. */
export function streamRunChanges(host: RunHost, store: RunStore): Response {
  const changed = new Set<string>();
  let wake: () => void = () => undefined;
  const stop = host.watch((runId) => {
    changed.add(runId);
    wake();
  });
  let closed = false;
  async function* blocks(): AsyncGenerator<string, void, undefined> {
    // A first comment line, so the reader knows the feed is on before any run changes.
    yield ': watching runs\n\n';
    while (!closed) {
      if (changed.size === 0) await new Promise<void>((resolve) => (wake = resolve));
      const runIds = [...changed];
      changed.clear();
      for (const runId of runIds) {
        const run = await store.get(runId);
        if (run !== undefined) yield serverSentEvent({ event: 'run', data: listItemOf(run) });
      }
    }
  }
  const body = eventStreamBody(blocks(), {
    onClose: () => {
      closed = true;
      stop();
      wake();
    },
  });
  return new Response(body as unknown as ConstructorParameters<typeof Response>[0], { headers: serverSentEventsHeaders });
}

/** A run this server did not start (or forgot): its stored status as one event, then the end. */
export function streamStoredStatus(runId: string, status: string): Response {
  async function* blocks(): AsyncGenerator<string, void, undefined> {
    yield serverSentEvent({ event: 'stored', data: { runId, status, live: false } });
    yield serverSentEvent({ event: 'end', data: { runId, lastSeq: 0 } });
  }
  return new Response(eventStreamBody(blocks()) as unknown as ConstructorParameters<typeof Response>[0], { headers: serverSentEventsHeaders });
}

/**
 * A run another process holds, on a store with a change feed: its stored progress as a `stored` event each time its
 * record changes (the store says when: no polling), then the end once it stops running or the reader goes.
 */
export function streamWatchedStatus(context: Context, store: RunStore & Required<Pick<RunStore, 'watch'>>, first: RunSummary): Response {
  const runId = first.runId;
  const progress = (run: RunSummary) => serverSentEvent({ event: 'stored', data: { runId, status: run.status, head: run.head, iterations: run.iterations, tokens: run.tokens, live: true } });
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
      await stream.write(progress(first));
      while (last.status === 'running' && !stream.aborted) {
        if (!changed) await new Promise<void>((resolve) => (wake = resolve));
        changed = false;
        const run = await store.get(runId);
        if (run === undefined) break;
        if (run.head !== last.head || run.status !== last.status || run.iterations !== last.iterations) await stream.write(progress(run));
        last = run;
      }
      if (!stream.aborted) await stream.write(serverSentEvent({ event: 'end', data: { runId, lastSeq: 0 } }));
    } finally {
      await stop();
    }
  });
}
