// A loopback HTTP server that answers each request with the next recorded reply: a status, headers and a body, or a
// list of server-sent events. Protocol-blind (any path, any API), so a recording of any provider replays through it.
//
// const server = await startRecordedServer([{ body: {...} }, { events: [{ event: 'message_start', data: {...} }] }]);
// ... point an adapter at server.url ... server.requests[n].body is what the adapter sent.
// A request beyond the recordings gets 418 naming the request; always `await server.close()`.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
}

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

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export async function startRecordedServer(replies: RecordedReply[]): Promise<RecordedServer> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    let rawBody = '';
    request.on('data', (chunk: Buffer) => (rawBody += chunk.toString()));
    request.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, rawBody, body });
      const reply = replies[requests.length - 1];
      if (reply === undefined) {
        response.writeHead(418, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `recorded-server: unexpected request #${requests.length}` } }));
        return;
      }
      if (reply.sse !== undefined) {
        response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
        response.end(reply.sse);
        return;
      }
      if (reply.events !== undefined) {
        response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
        for (const event of reply.events)
          response.write(
            `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${asText(event.data)}\n\n`,
          );
        if (reply.done) response.write('data: [DONE]\n\n');
        response.end();
        return;
      }
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      response.end(reply.body === undefined ? '' : asText(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
