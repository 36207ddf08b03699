// The replay server (replay-server.ts) fed a list of recorded replies up front: each request gets the next one: a status, headers and a body, or a
// list of server-sent events. Protocol-blind (any path, any API), so a recording of any provider replays through it.
//
// const server = await startRecordedServer([{ body: {...} }, { events: [{ event: 'message_start', data: {...} }] }]);
// ... point an adapter at server.url ... server.requests[n].body is what the adapter sent.
// A request beyond the recordings gets 418 naming the request; always `await server.close()`.
import { readFileSync } from 'node:fs';
import type { JsonValue } from '../../src/common/json.js';
import { startReplayServer, type RecordedAnswer, type ReplayedRequest } from './replay-server.js';

export interface RecordedEvent {
  /** The SSE `event:` line, when the protocol names its events (Anthropic, Responses). */
  event?: string;
  /** The `data:` line: text as is, anything else as JSON. */
  data: unknown;
}

export interface RecordedReply {
  status?: number;
  headers?: Record<string, string>;
  /** A whole body: text as is, anything else as JSON. */
  body?: unknown;
  /** Server-sent events instead of a body. */
  events?: RecordedEvent[];
  /** An SSE `data: [DONE]` after the events (Chat Completions). */
  done?: boolean;
  /** A server-sent events body exactly as recorded (comments, blank lines and all). */
  sse?: string;
}

/** A request as received; its body is read by each test as the shape it expects. */
export type ReceivedRequest = Omit<ReplayedRequest, 'body'> & { body: unknown };

export interface RecordedServer {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** The events of a `.chunks.txt` recording (one JSON event a line), named by their `type` when `named`. */
export function eventsOfChunks(text: string, named: boolean): RecordedEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const data: unknown = JSON.parse(line);
      const type = (data as { type?: unknown }).type;
      return named && typeof type === 'string' ? { event: type, data } : { data };
    });
}

/** A recording file as a reply: `.chunks.txt` as events, anything else as a JSON body with the given status. */
export function replyOfFile(path: string, options: { status?: number; named?: boolean } = {}): RecordedReply {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.chunks.txt')) return { events: eventsOfChunks(text, options.named ?? true) };
  return { status: options.status ?? 200, body: JSON.parse(text) };
}

/** The same recording as the replay server takes it (one server replays every protocol: replay-server.ts). */
function answerOf(reply: RecordedReply): RecordedAnswer {
  const answer: RecordedAnswer = {};
  if (reply.status !== undefined) answer.status = reply.status;
  if (reply.sse !== undefined) answer.sse = reply.sse;
  else if (reply.events !== undefined) {
    answer.chunks = reply.events.map((event) =>
      event.event === undefined ? (event.data as JsonValue) : { event: event.event, data: event.data as JsonValue },
    );
    answer.done = reply.done === true;
  } else {
    answer.body = (reply.body ?? '') as JsonValue;
    // A recorded body is JSON on the wire even when it is kept as text.
    answer.headers = { 'content-type': 'application/json' };
  }
  if (reply.headers !== undefined) answer.headers = { ...answer.headers, ...reply.headers };
  return answer;
}

export async function startRecordedServer(replies: RecordedReply[]): Promise<RecordedServer> {
  const server = (await startReplayServer()).queue(...replies.map(answerOf));
  return { url: server.url(), requests: server.requests, close: () => server.close() };
}
