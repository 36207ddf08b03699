// Fault matrix, the model: HTTP errors with and without retry-after, hangs, resets, malformed, partial and huge bodies
// and streams, from a real Chat Completions server on 127.0.0.1 through the real adapter and a whole ReAct run.
import { describe, it } from 'vitest';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import type { OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import { applyGuards } from '../../pipelines/guards.js';
import type { GuardSettings } from '../../src/engine/guard-settings.js';
import { completionBody, replyChunks, textChunk, type ChatServer } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { expect } from 'vitest';
import { runCase, streamed, type Expected } from './harness.js';

const loopback = useLoopbackServer();
const calc = (expression: string, id: string) => ({
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
  id,
});

interface Row {
  name: string;
  arrange: (server: ChatServer) => void;
  model?: Partial<OpenAIChatModelOptions>;
  /** Run through chatStream instead of chat. */
  stream?: boolean;
  guards?: GuardSettings;
  expected: Expected;
  /** Requests the server must have seen (a summary call that must not be made, say). */
  requests?: number;
  /** The caller cancels the run this many ms after it starts. */
  cancelAfterMs?: number;
  /** Plan-Execute-Replan instead of ReAct. */
  planned?: boolean;
}

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
const failed = (kind: RegExp, boundMs = 3_000): Expected => ({
  status: 'failed',
  kind: 'error',
  stage: 'think',
  message: kind,
  boundMs,
});
const completed = (answer: RegExp, boundMs = 3_000): Expected => ({
  status: 'completed',
  kind: 'completed',
  answer,
  boundMs,
});

const rows: Row[] = [
  {
    name: '500 without retry-after, no retries',
    arrange: (server) => server.fail(500, { message: 'boom' }),
    expected: failed(/answered 500/),
  },
  {
    name: '500 twice then an answer (retries)',
    arrange: (server) =>
      server.fail(500, { times: 2, headers: { 'retry-after-ms': '5' } }).replyWith({ content: '395' }),
    model: { maxRetries: 2 },
    expected: completed(/^395$/),
  },
  {
    name: '503 with retry-after 0.05 then an answer',
    arrange: (server) => server.fail(503, { headers: { 'retry-after': '0.05' } }).replyWith({ content: '395' }),
    model: { maxRetries: 1 },
    expected: completed(/^395$/),
  },
  {
    name: '502 without retry-after: the backoff, then an answer',
    arrange: (server) => server.fail(502).replyWith({ content: '395' }),
    model: { maxRetries: 1 },
    expected: completed(/^395$/),
  },
  {
    name: '429 retry-after 40 is cut to the cap',
    arrange: (server) => server.fail(429, { headers: { 'retry-after': '40' } }).replyWith({ content: '395' }),
    model: { maxRetries: 1, maxRetryAfterMs: 100 },
    expected: completed(/^395$/, 2_000),
  },
  {
    name: 'a cancel during a 40 s retry-after wait',
    arrange: (server) => server.fail(429, { headers: { 'retry-after': '40' }, times: 3 }),
    model: { maxRetries: 2, maxRetryAfterMs: 60_000 },
    cancelAfterMs: 150,
    expected: {
      status: 'cancelled',
      kind: 'cancelled',
      stage: 'think',
      answer: /^I could not finish this task/,
      boundMs: 500,
    },
    requests: 1,
  },
  {
    name: '429 that keeps coming',
    arrange: (server) => server.fail(429, { times: 3, headers: { 'retry-after-ms': '5' }, message: 'slow down' }),
    model: { maxRetries: 2 },
    expected: failed(/429 after 3 attempts: slow down/),
    requests: 4,
  },
  {
    name: '429 as an HTTP date in retry-after',
    arrange: (server) =>
      server
        .fail(429, { headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } })
        .replyWith({ content: '395' }),
    model: { maxRetries: 1, maxRetryAfterMs: 50 },
    expected: completed(/^395$/),
  },
  {
    name: '408 then an answer',
    arrange: (server) => server.fail(408).replyWith({ content: '395' }),
    model: { maxRetries: 1, maxRetryAfterMs: 50 },
    expected: completed(/^395$/),
  },
  {
    name: '401: no summary call after auth',
    arrange: (server) => server.fail(401, { message: 'bad key' }).replyWith({ content: 'must not be asked' }),
    expected: failed(/401: bad key/),
    requests: 1,
  },
  {
    name: 'the planner gets a 401: no summary call either',
    planned: true,
    arrange: (server) => server.fail(401, { message: 'bad key' }).replyWith({ content: 'must not be asked' }),
    expected: { status: 'failed', kind: 'error', stage: 'plan', message: /401: bad key/, boundMs: 3_000 },
    requests: 1,
  },
  {
    name: '403: no summary call after auth',
    arrange: (server) => server.fail(403).replyWith({ content: 'must not be asked' }),
    expected: failed(/403/),
    requests: 1,
  },
  {
    name: '400 bad request',
    arrange: (server) => server.fail(400, { message: 'tool_choice unsupported' }),
    expected: failed(/400: tool_choice unsupported/),
  },
  {
    name: '404 unknown model',
    arrange: (server) => server.fail(404, { message: 'no such model' }),
    expected: failed(/404/),
  },
  {
    name: 'a server that never answers (timeoutMs)',
    arrange: (server) => server.hang(2),
    model: { timeoutMs: 200 },
    expected: failed(/within 200 ms/, 2_000),
  },
  {
    name: 'a server that never answers (--timeout)',
    arrange: (server) => server.hang(),
    model: { timeoutMs: 10_000 },
    guards: { timeoutSeconds: 0.5 },
    expected: {
      status: 'stopped',
      kind: 'budget_time',
      answer: /^I could not finish this task: the time budget/,
      boundMs: 1_500,
    },
    requests: 1,
  },
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

describe('fault matrix: the model', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    row.arrange(loopback.server);
    const adapter = loopback.model({ maxRetries: 0, timeoutMs: 2_000, ...row.model });
    const model = row.stream ? streamed(adapter) : adapter;
    const base = row.planned ? planExecuteReplanPipeline() : reactPipeline();
    const pipeline = row.guards ? applyGuards(base, row.guards, { modelName: 'test-model' }) : base;
    const signal = row.cancelAfterMs === undefined ? {} : { signal: AbortSignal.timeout(row.cancelAfterMs) };
    await runCase(pipeline, 'What is 17 * 23 + 4?', { deps: { model, tools: testTools() }, ...signal }, row.expected);
    if (row.requests !== undefined) expect(loopback.server.requests).toHaveLength(row.requests);
  });
});
