// A run's events read into an SSE body of `data:` JSON lines, written by src/stream's one writer; a client that
// hangs up cancels the run (its stop button).
import type { Context } from 'hono';
import type { RunEvent } from '../../engine/stage.js';
import {
  eventStreamBody,
  serverSentEvent,
  serverSentEventsHeaders,
  serverSentText,
} from '../../stream/server-sent-events.js';
import { eventsOf, type ProtocolRun } from './protocol-runs.js';

export interface RunSseReader {
  /** Every event of the run in order, ending with the run (or when the client went away). */
  events: AsyncGenerator<RunEvent>;
  /** Aborted when the client went away: write nothing more. */
  gone: AbortSignal;
}

/** A line a producer yields as it is (not as JSON), such as `[DONE]`. */
export class RawLine {
  constructor(readonly text: string) {}
}

/** `produce` yields what the protocol sends: each value one `data:` block of JSON, a RawLine as it is. */
export function runSse(
  context: Context,
  run: ProtocolRun,
  client: string,
  produce: (reader: RunSseReader) => AsyncGenerator<unknown, void, undefined>,
): Response {
  const gone = new AbortController();
  async function* blocks(): AsyncGenerator<string, void, undefined> {
    for await (const value of produce({ events: eventsOf(run.log, gone.signal), gone: gone.signal })) {
      yield value instanceof RawLine ? serverSentText(value.text) : serverSentEvent({ data: value });
    }
  }
  const body = eventStreamBody(blocks(), {
    onClose: () => {
      gone.abort();
      run.cancel(`the ${client} client went away`);
    },
  });
  return context.body(body as unknown as ReadableStream<Uint8Array>, 200, { ...serverSentEventsHeaders });
}
