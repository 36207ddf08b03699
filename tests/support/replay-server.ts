// A loopback HTTP server that replays recorded answers of real providers, whatever the protocol (Chat Completions,
// Responses, Anthropic Messages): each request, to any path, gets the next queued answer as it was recorded.
//
// const server = await startReplayServer();
// server.queue({ status: 200, body: { ...recorded JSON... } });              // one whole body (JSON or text)
// server.queue({ chunks: [{...}, {...}] });                                  // server-sent events, `data: <chunk>`
// server.queue({ chunks: [{ event: 'message_start', data: {...} }] });       // events with a name (Anthropic)
// server.queue({ sse: 'data: {...}\n\ndata: [DONE]\n\n' });                   // the event-stream text as recorded
// const model = new OpenAIChatModel({ baseUrl: server.url('/v1'), model: 'm' });
//
// Chunks end with `data: [DONE]` unless `done: false` (recordings kept as chunk lists, like the AI SDK's fixtures, omit
// it; the servers send it). A request with nothing queued gets 418. Recorded: server.requests ({ method, path, headers,
// body }). Always `await server.close()`.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonValue } from '../../src/common/json.js';

/** One recorded answer: a status, headers, and a whole body, a list of events, or raw event-stream text. */
export interface RecordedAnswer {
  /** Default 200. */
  status?: number;
  /** Default: application/json for a body that is JSON, text/event-stream for chunks and sse. */
  headers?: Record<string, string>;
  /** A whole body: JSON (sent as recorded, re-serialised) or text (sent byte for byte). */
  body?: JsonValue;
  /** Server-sent events: each a JSON value or raw text for `data:`, or one with an event name. */
  chunks?: Array<JsonValue | { event: string; data: JsonValue }>;
  /** The event-stream text as recorded, sent byte for byte. */
  sse?: string;
  /** For chunks: end with `data: [DONE]` (default true). */
  done?: boolean;
}

export interface ReplayedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: JsonValue;
}

export class ReplayServer {
  readonly requests: ReplayedRequest[] = [];
  private readonly answers: RecordedAnswer[] = [];
  private readonly server: Server;
  private port = 0;

  constructor() {
    this.server = createServer((request, response) => {
      const pieces: Buffer[] = [];
      request.on('data', (piece: Buffer) => pieces.push(piece));
      request.on('end', () => {
        const text = Buffer.concat(pieces).toString('utf8');
        this.requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: parsed(text),
        });
        const answer = this.answers.shift();
        if (answer === undefined) {
          response.writeHead(418, { 'content-type': 'text/plain' });
          response.end(`replay-server: unexpected request #${this.requests.length}`);
          return;
        }
        const streamed = answer.chunks !== undefined || answer.sse !== undefined;
        const isText = typeof answer.body === 'string';
        const contentType = streamed ? 'text/event-stream' : isText ? 'text/plain' : 'application/json';
        response.writeHead(answer.status ?? 200, { 'content-type': contentType, ...answer.headers });
        response.end(streamed ? eventStream(answer) : isText ? answer.body : JSON.stringify(answer.body ?? null));
      });
    });
  }

  /** The base URL of this server with `path` appended, e.g. url('/v1') for an OpenAI client. */
  url(path = ''): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Answers for the next requests, in order. */
  queue(...answers: RecordedAnswer[]): this {
    this.answers.push(...answers);
    return this;
  }

  /** Queued answers not yet requested. */
  get remaining(): number {
    return this.answers.length;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function startReplayServer(): Promise<ReplayServer> {
  return new ReplayServer().listen();
}

function parsed(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function eventStream(answer: RecordedAnswer): string {
  if (answer.sse !== undefined) return answer.sse;
  const lines = (answer.chunks ?? []).map((chunk) => {
    const named =
      typeof chunk === 'object' && chunk !== null && !Array.isArray(chunk) && typeof chunk.event === 'string';
    const data = named ? (chunk as { data: JsonValue }).data : chunk;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    return named ? `event: ${(chunk as { event: string }).event}\ndata: ${text}\n\n` : `data: ${text}\n\n`;
  });
  if (answer.done !== false) lines.push('data: [DONE]\n\n');
  return lines.join('');
}
