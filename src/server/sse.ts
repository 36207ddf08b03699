// A run's events as Server-Sent Events: `id:` is the event's seq, so a reader that reconnects with Last-Event-ID
// gets exactly the events after it; an `end` event closes the stream when the run is over.
import type { RunStore, RunSummary } from '../store/types.js';
import type { RunHost } from './run-host.js';
import { listItemOf } from './run-view.js';
import type { EventLog } from '../stream/event-log.js';
import {
  blocksOf,
  eventStreamBody,
  serverSentEvent,
  serverSentEventsHeaders,
  type EventStreamBodyOptions,
} from '../stream/server-sent-events.js';

/** Blocks of text as a text/event-stream response, written by src/stream's one writer. */
function eventStreamResponse(blocks: AsyncIterator<string>, options?: EventStreamBodyOptions): Response {
  return new Response(eventStreamBody(blocks, options) as unknown as ConstructorParameters<typeof Response>[0], {
    headers: serverSentEventsHeaders,
  });
}

/** The events after `afterSeq` with the seq the run gave them, then `end` once the run is over; written by src/stream. */
export function streamEvents(runId: string, log: EventLog, afterSeq: number): Response {
  const gone = new AbortController();
  return eventStreamResponse(blocksOf(log.read(afterSeq, gone.signal)), {
    trailer: () => serverSentEvent({ event: 'end', data: { runId, lastSeq: Math.max(afterSeq, log.lastSeq) } }),
    onClose: () => gone.abort(),
  });
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
  return eventStreamResponse(blocks(), {
    onClose: () => {
      closed = true;
      stop();
      wake();
    },
  });
}

/** A run this server did not start (or forgot): its stored status as one event, then the end. */
export function streamStoredStatus(runId: string, status: string): Response {
  async function* blocks(): AsyncGenerator<string, void, undefined> {
    yield serverSentEvent({ event: 'stored', data: { runId, status, live: false } });
    yield serverSentEvent({ event: 'end', data: { runId, lastSeq: 0 } });
  }
  return eventStreamResponse(blocks());
}

/**
 * A run another process holds, on a store with a change feed: its stored progress as a `stored` event each time its
 * record changes (the store says when: no polling), then the end once it stops running or the reader goes.
 */
export function streamWatchedStatus(store: RunStore & Required<Pick<RunStore, 'watch'>>, first: RunSummary): Response {
  const runId = first.runId;
  const progress = (run: RunSummary) =>
    serverSentEvent({
      event: 'stored',
      data: { runId, status: run.status, head: run.head, iterations: run.iterations, tokens: run.tokens, live: true },
    });
  let wake = (): void => undefined;
  // Set at first too: a change between the read above and LISTEN is read once the feed is on.
  let changed = true;
  let closed = false;
  async function* blocks(): AsyncGenerator<string, void, undefined> {
    const stop = await store.watch((id) => {
      if (id !== runId) return;
      changed = true;
      wake();
    });
    try {
      let last = first;
      yield progress(first);
      while (last.status === 'running' && !closed) {
        if (!changed) await new Promise<void>((resolve) => (wake = resolve));
        changed = false;
        if (closed) break;
        const run = await store.get(runId);
        if (run === undefined) break;
        if (run.head !== last.head || run.status !== last.status || run.iterations !== last.iterations)
          yield progress(run);
        last = run;
      }
      if (!closed) yield serverSentEvent({ event: 'end', data: { runId, lastSeq: 0 } });
    } finally {
      await stop();
    }
  }
  return eventStreamResponse(blocks(), {
    onClose: () => {
      closed = true;
      wake();
    },
  });
}
