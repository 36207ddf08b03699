// The event store behind resumable SSE on /mcp: every message a session's streams send is kept (a bounded number per
// session), so a client whose stream dropped reconnects with Last-Event-ID and gets what it missed, in order.
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Messages kept per session; the oldest are dropped first (a client that far behind initializes again). */
const keptEvents = 1_000;

interface StoredEvent {
  streamId: string;
  message: JSONRPCMessage;
}

export class SessionEventStore implements EventStore {
  readonly #events = new Map<string, StoredEvent>();
  #next = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The stream id stays readable in the event id, for the SDK's mapping and for a person reading traffic.
    const eventId = `${streamId}_${(this.#next += 1)}`;
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > keptEvents) this.#events.delete(this.#events.keys().next().value!);
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    for (const [eventId, event] of this.#events) {
      if (after && event.streamId === last.streamId) await send(eventId, event.message);
      if (eventId === lastEventId) after = true;
    }
    return last.streamId;
  }
}
