// A scripted loopback HTTP server speaking the Chat Completions protocol, for tests of anything that calls a model.
//
// const server = await startChatServer();           // listens on 127.0.0.1, a free port
// const model = new OpenAIChatModel({ baseUrl: server.url, model: 'test-model', apiKey: 'sk-test' });
//
// Each request to POST {url}/chat/completions takes the next entry of a queue; queue entries with:
//   server.replyWith({ content, toolCalls?, finishReason?, usage?, model? })   one JSON completion (streamed if asked)
//   server.replyWithToolCalls([{ name, arguments, id? }], options?)            the same, tool calls only
//   server.stream(chunks, { delayMs?, done?, hang? })   SSE: each chunk an object (sent as JSON) or a raw string;
//        build chunks with textChunk(), toolCallChunk(), finishChunk(), usageChunk(); `done: false` omits [DONE];
//        `hang: true` keeps the connection open after the chunks
//   server.streamReply({ content, toolCalls, splitEvery? })   the same reply as replyWith, streamed in small pieces
//   server.fail(status, { message?, headers?, times? })        an error reply (e.g. 429 with retry-after-ms)
//   server.raw(status, body, headers?)                         any body, e.g. one that is not JSON
//   server.hang()                                               never answers (until close)
//   server.handle((request, response) => ...)                   anything else, with node:http objects
// `times` (default 1) repeats an entry. A request with nothing queued gets 418 "chat-server: unexpected request #n".
// Recorded: server.requests[] ({ method, path, headers, body, rawBody }), server.lastBody, server.remaining;
// server.received(n) / server.answered(n) wait (bounded) for the nth request to arrive / its reply to be sent in full.
// server.assertConsumed() throws when queued entries were never used. Always `await server.close()` (afterEach), or let
// useLoopbackServer() (tests/support/loopback-model.ts) start and close one per test.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionBody, replyChunks, type ReplyOptions, type ServerToolCall } from './chat-bodies.js';

export {
  completionBody,
  finishChunk,
  replyChunks,
  textChunk,
  toolCallChunk,
  usageBody,
  usageChunk,
  type ReplyOptions,
  type ServerToolCall,
  type ServerUsage,
} from './chat-bodies.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: ChatRequestBody;
  rawBody: string;
}

/** The fields of a Chat Completions request body tests usually look at. */
export interface ChatRequestBody {
  model?: string;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{
    type: string;
    function: { name: string; description?: string; parameters?: unknown; strict?: boolean };
  }>;
  tool_choice?: unknown;
  response_format?: { type: string; json_schema?: { name: string; schema?: unknown; strict?: boolean } };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

export interface StreamOptions {
  delayMs?: number;
  /** Send `data: [DONE]` at the end (default true). */
  done?: boolean;
  /** Keep the connection open after the last chunk instead of ending it. */
  hang?: boolean;
  times?: number;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

interface QueueEntry {
  handler: Handler;
  times: number;
}

export class ChatServer {
  readonly requests: RecordedRequest[] = [];
  /** Requests whose handler has finished: the reply (or error) is on its way to the client. */
  answeredCount = 0;
  private readonly queue: QueueEntry[] = [];
  private readonly waiters: Array<{ ready: () => boolean; resolve: () => void }> = [];
  private readonly server: Server;
  private port = 0;

  constructor() {
    this.server = createServer((request, response) => void this.dispatch(request, response));
  }

  /** Base URL to give a client, e.g. http://127.0.0.1:40123/v1. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  get lastBody(): ChatRequestBody | undefined {
    return this.requests.at(-1)?.body;
  }

  /** Queued replies not yet used. */
  get remaining(): number {
    return this.queue.reduce((total, entry) => total + entry.times, 0);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  handle(handler: Handler, times = 1): this {
    this.queue.push({ handler, times });
    return this;
  }

  /** A request that asks for a stream (a run someone listens to) gets the same reply streamed, as a real server would. */
  replyWith(reply: ReplyOptions): this {
    return this.handle((request, response) => sendReply(request, response, reply), reply.times);
  }

  replyWithToolCalls(toolCalls: ServerToolCall[], options: Omit<ReplyOptions, 'toolCalls'> = {}): this {
    return this.replyWith({ ...options, toolCalls });
  }

  stream(chunks: Array<Record<string, unknown> | string>, options: StreamOptions = {}): this {
    return this.handle(async (_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      for (const chunk of chunks) {
        if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        if (response.destroyed) return;
        response.write(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
      }
      if (options.hang) return;
      if (options.done !== false) response.write('data: [DONE]\n\n');
      response.end();
    }, options.times);
  }

  streamReply(reply: ReplyOptions & { splitEvery?: number }, options: StreamOptions = {}): this {
    return this.stream(replyChunks(reply), { ...options, times: options.times ?? reply.times });
  }

  fail(status: number, options: { message?: string; headers?: Record<string, string>; times?: number } = {}): this {
    const body = { error: { message: options.message ?? `test failure ${status}`, type: 'test_error', code: null } };
    return this.handle((_request, response) => sendJson(response, status, body, options.headers), options.times);
  }

  raw(status: number, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): this {
    return this.handle((_request, response) => {
      response.writeHead(status, headers);
      response.end(body);
    });
  }

  /** Never answers: the request stays open until the client gives up or the server closes. */
  hang(times = 1): this {
    return this.handle(() => undefined, times);
  }

  /** Resolves once `count` requests have arrived (a wait on the event, not on time). */
  received(count = 1, timeoutMs?: number): Promise<void> {
    return this.waitFor(() => this.requests.length >= count, `${count} request(s)`, timeoutMs);
  }

  /** Resolves once `count` replies have been sent in full: the client is then past that answer (in a retry wait, say). */
  answered(count = 1): Promise<void> {
    return this.waitFor(() => this.answeredCount >= count, `${count} answered request(s)`);
  }

  private waitFor(ready: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`chat-server: no ${what} within ${timeoutMs} ms (got ${this.requests.length})`)),
        timeoutMs,
      );
      this.waiters.push({ ready, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private wake(): void {
    for (const waiter of this.waiters.filter((entry) => entry.ready())) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  assertConsumed(): void {
    if (this.remaining > 0)
      throw new Error(
        `chat-server: ${this.remaining} queued repl${this.remaining === 1 ? 'y was' : 'ies were'} never requested`,
      );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const pieces: Buffer[] = [];
    for await (const piece of request) pieces.push(piece as Buffer);
    const rawBody = Buffer.concat(pieces).toString('utf8');
    let body: ChatRequestBody;
    try {
      body = JSON.parse(rawBody) as ChatRequestBody;
    } catch {
      body = { messages: [] };
    }
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
      rawBody,
    };
    this.requests.push(recorded);
    this.wake();
    response.once('finish', () => {
      this.answeredCount += 1;
      this.wake();
    });
    const entry = this.queue[0];
    if (entry === undefined) {
      sendJson(response, 418, {
        error: {
          message: `chat-server: unexpected request #${this.requests.length}: nothing was queued`,
          type: 'test_error',
        },
      });
      return;
    }
    entry.times -= 1;
    if (entry.times <= 0) this.queue.shift();
    try {
      await entry.handler(recorded, response);
    } catch (error) {
      if (!response.headersSent)
        sendJson(response, 599, { error: { message: `chat-server: handler threw: ${String(error)}` } });
      else response.destroy();
    }
  }
}

/** Sends `reply` streamed when the request asked for a stream, else as one JSON completion. */
export function sendReply(request: RecordedRequest, response: ServerResponse, reply: ReplyOptions): void {
  if (request.body.stream !== true) return sendJson(response, 200, completionBody(reply));
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of replyChunks(reply)) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end('data: [DONE]\n\n');
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Starts a server on 127.0.0.1 with a free port. */
export async function startChatServer(): Promise<ChatServer> {
  return new ChatServer().listen();
}
