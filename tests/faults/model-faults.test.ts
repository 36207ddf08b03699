// Fault matrix, the model: HTTP errors with and without retry-after, and hangs (resets, bodies and streams are in
// model-faults-bodies.test.ts), from a real Chat Completions server on 127.0.0.1 through the real adapter and a run.
import { completed, failed, modelFaultMatrix, type Row } from './model-faults-matrix.js';

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
];

modelFaultMatrix(rows);
