// Fault matrix, the model (continued): resets, cut, malformed, odd and huge bodies, usage counts and streams; apart
// from model-faults.test.ts (HTTP errors, retries, hangs) to keep each file short.
import { completionBody, replyChunks, textChunk, type ChatServer } from '../support/chat-server.js';
import { calc, completed, failed, modelFaultMatrix, type Row } from './model-faults-matrix.js';

const cutBody = (server: ChatServer) =>
  server.handle((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '900' });
    response.write('{"choices": [{"message": {"content": "half');
    setTimeout(() => response.destroy(), 10);
  });
const cutStream = (server: ChatServer) =>
  server.handle((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(`data: ${JSON.stringify(textChunk('partial an'))}\n\n`);
    setTimeout(() => response.destroy(), 10);
  });

const rows: Row[] = [
  {
    name: 'connection reset at once: no summary call after connection',
    arrange: (server) =>
      server.handle((_request, response) => void response.destroy()).replyWith({ content: 'must not be asked' }),
    expected: failed(/cannot reach|lost the connection|connection/),
    requests: 1,
  },
  {
    name: 'connection reset, then an answer (retried)',
    arrange: (server) => server.handle((_request, response) => void response.destroy()).replyWith({ content: '395' }),
    model: { maxRetries: 1, maxRetryAfterMs: 50 },
    expected: completed(/^395$/),
  },
  {
    name: 'socket closed mid-body: a connection error',
    arrange: cutBody,
    expected: failed(/lost the connection to .* in the middle of its answer/),
    requests: 1,
  },
  {
    name: 'socket closed mid-body, then an answer (retried)',
    arrange: (server) => (cutBody(server), server.replyWith({ content: '395' })),
    model: { maxRetries: 1, maxRetryAfterMs: 50 },
    expected: completed(/^395$/),
  },
  {
    name: 'a body that stops halfway and stays open',
    arrange: (server) =>
      server.handle(
        (_request, response) =>
          void response.writeHead(200, { 'content-type': 'application/json' }).write('{"choices": ['),
      ),
    model: { timeoutMs: 200 },
    expected: failed(/stopped sending/, 2_000),
  },
  {
    name: 'malformed JSON',
    arrange: (server) => server.raw(200, '{"choices": [{"message": '),
    expected: failed(/not valid JSON/),
  },
  {
    name: 'an HTML error page with status 200',
    arrange: (server) => server.raw(200, '<html>502 Bad Gateway</html>', { 'content-type': 'text/html' }),
    expected: failed(/not a chat completion/),
  },
  {
    name: 'JSON that is not a completion',
    arrange: (server) => server.raw(200, JSON.stringify({ hello: 'world' })),
    expected: failed(/without choices/),
  },
  {
    name: 'content that is a number',
    arrange: (server) =>
      server.raw(
        200,
        JSON.stringify({
          ...completionBody({}),
          choices: [{ index: 0, message: { role: 'assistant', content: 395 }, finish_reason: 'stop' }],
        }),
      ),
    expected: failed(/a number as message.content/),
  },
  {
    name: 'an empty body',
    arrange: (server) => server.raw(200, ''),
    expected: failed(/not valid JSON|not a chat completion/),
  },
  {
    name: 'a 5 MB answer',
    arrange: (server) => server.replyWith({ content: 'x'.repeat(5_000_000) }),
    expected: completed(/^x{1000}/, 6_000),
  },
  {
    name: 'usage counts as strings are estimated',
    arrange: (server) =>
      server.raw(
        200,
        JSON.stringify({
          ...completionBody({ content: '395' }),
          usage: { prompt_tokens: 'abc', completion_tokens: 'abc' },
        }),
      ),
    expected: completed(/^395$/),
  },
  {
    name: 'a negative usage count cannot disable the token budget',
    arrange: (server) => {
      for (let turn = 1; turn <= 6; turn++)
        server.raw(
          200,
          JSON.stringify({
            ...completionBody({ toolCalls: [calc(`${turn} + 1`, `c${turn}`)] }),
            usage: { prompt_tokens: -1_000_000, completion_tokens: 5 },
          }),
        );
    },
    guards: { maxTokens: 300 },
    expected: { status: 'stopped', kind: 'budget_tokens', boundMs: 5_000 },
  },
  {
    name: 'tool-call arguments cut by the length limit, again and again',
    arrange: (server) => server.replyWithToolCalls([calc('1 +', 'c1')], { finishReason: 'length', times: 4 }),
    expected: { status: 'stopped', kind: 'truncation', stage: 'think', boundMs: 3_000 },
  },
  {
    name: 'stream: a reply in small pieces',
    stream: true,
    arrange: (server) => server.streamReply({ content: 'three hundred ninety-five', splitEvery: 2 }),
    expected: completed(/^three hundred ninety-five$/),
  },
  {
    name: 'stream: the socket closes mid-stream',
    stream: true,
    arrange: cutStream,
    expected: failed(/lost the connection|connection/),
    requests: 1,
  },
  {
    name: 'stream: silent after a first chunk',
    stream: true,
    arrange: (server) => server.stream([textChunk('thinking')], { hang: true }),
    model: { timeoutMs: 200 },
    expected: failed(/stopped sending/, 2_000),
  },
  {
    name: 'stream: a chunk that is not JSON',
    stream: true,
    arrange: (server) => server.stream([textChunk('ok'), '{not json']),
    expected: failed(/./),
  },
  {
    name: 'stream: an error object mid-stream',
    stream: true,
    arrange: (server) => server.stream([textChunk('ok'), { error: { message: 'overloaded' } }]),
    expected: failed(/overloaded/),
  },
  {
    name: 'stream: without [DONE] and without usage',
    stream: true,
    arrange: (server) => server.stream(replyChunks({ content: '395', usage: null }), { done: false }),
    expected: completed(/^395$/),
  },
  {
    name: 'stream: a 2 MB answer in 20,000 chunks',
    stream: true,
    arrange: (server) => server.stream(Array.from({ length: 20_000 }, () => textChunk('y'.repeat(100)))),
    expected: completed(/^y{1000}/, 8_000),
  },
];

modelFaultMatrix(rows);
