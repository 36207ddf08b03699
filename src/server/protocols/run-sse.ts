// A run's events read into an SSE body of `data:` JSON lines; a client that hangs up cancels the run (its stop button).
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunEvent } from '../../engine/stage.js';
import { eventsOf, type ProtocolRun } from './protocol-runs.js';

export interface RunSseWriter {
  /** Every event of the run in order, ending with the run (or when the client went away). */
  events: AsyncGenerator<RunEvent>;
  /** Aborted when the client went away: write nothing more. */
  gone: AbortSignal;
  send(value: unknown): Promise<void>;
  /** A raw `data:` line, such as `[DONE]`. */
  sendRaw(data: string): Promise<void>;
}

export function runSse(context: Context, run: ProtocolRun, client: string, produce: (writer: RunSseWriter) => Promise<void>): Response {
  return streamSSE(context, async (stream) => {
    const gone = new AbortController();
    stream.onAbort(() => {
      gone.abort();
      run.cancel(`the ${client} client went away`);
    });
    await produce({
      events: eventsOf(run.log, gone.signal),
      gone: gone.signal,
      send: (value) => stream.writeSSE({ data: JSON.stringify(value) }),
      sendRaw: (data) => stream.writeSSE({ data }),
    });
  });
}
