// OpenAIChatModel failures: retries, rate limits, timeouts, aborts, bad bodies, and no API key in any message.
import { describe, expect, it } from 'vitest';
import { OpenAIChatModel, type OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import { ModelError, type ChatRequest } from '../../src/model/types.js';
import { startChatServer } from '../support/chat-server.js';
import { PROMPTLY_MS } from '../support/helpers.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const secretKey = 'sk-proj-SECRET1234567890abcdef';
const request: ChatRequest = { purpose: 'think', messages: [{ role: 'user', content: 'hi' }] };

const loopback = useLoopbackServer({ apiKey: secretKey });

const model = (options: Partial<OpenAIChatModelOptions> = {}) => loopback.model(options);

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const outcome = await promise.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ModelError);
  const error = outcome as ModelError;
  expect(error.message).not.toContain(secretKey);
  expect(error.message).not.toContain('SECRET1234');
  return error;
}

describe('OpenAIChatModel errors', () => {
  it('retries a 429 after its retry-after, then succeeds', async () => {
    loopback.server.fail(429, { headers: { 'retry-after': '0.05' } }).replyWith({ content: 'finally' });
    const started = Date.now();
    const response = await model({ maxRetries: 2 }).chat(request);
    expect(response.content).toBe('finally');
    expect(loopback.server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(loopback.server.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
  });

  it('gives up on a 429 that keeps coming: rate_limited, retryable, status 429', async () => {
    loopback.server.fail(429, { headers: { 'retry-after-ms': '5' }, times: 2, message: 'Rate limit reached' });
    const error = await failure(model({ maxRetries: 1 }).chat(request));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(429);
    expect(error.message).toContain('Rate limit reached');
    expect(loopback.server.requests).toHaveLength(2);
  });

  it('reports server after a 500 on every one of the configured retries', async () => {
    loopback.server.fail(500, { headers: { 'retry-after-ms': '5' }, times: 4, message: 'boom' });
    const error = await failure(model({ maxRetries: 3 }).chat(request));
    expect(error.kind).toBe('server');
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('4 attempts');
    expect(loopback.server.requests).toHaveLength(4);
    loopback.server.assertConsumed();
  });

  it('reports timeout when the server never answers', async () => {
    loopback.server.hang(2);
    const started = Date.now();
    const error = await failure(model({ timeoutMs: 150, maxRetries: 1 }).chat(request));
    expect(error.kind).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('150 ms');
    expect(loopback.server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
  });

  it('reports timeout when the body stops halfway after the headers', async () => {
    loopback.server.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"choices": [');
    });
    const error = await failure(model({ timeoutMs: 200 }).chat(request));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('stopped sending');
  });

  it('returns at once on an abort while waiting for the answer, not at its 60 s timeout', async () => {
    loopback.server.hang();
    const controller = new AbortController();
    const pending = model({ timeoutMs: 60_000 }).chat(request, controller.signal);
    await loopback.server.received(1);
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(error.retryable).toBe(false);
    expect(Date.now() - abortedAt).toBeLessThan(PROMPTLY_MS);
  });

  it('returns at once on an abort while the SDK waits 40 s to retry', async () => {
    loopback.server.fail(503, { headers: { 'retry-after': '40' } }).replyWith({ content: 'too late' });
    const controller = new AbortController();
    const pending = model({ maxRetries: 1, maxRetryAfterMs: 60_000 }).chat(request, controller.signal);
    await loopback.server.answered(1);
    expect(loopback.server.requests).toHaveLength(1);
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(Date.now() - abortedAt).toBeLessThan(PROMPTLY_MS);
  });

  it('fails fast with aborted when the signal is already aborted', async () => {
    const error = await failure(model().chat(request, AbortSignal.abort()));
    expect(error.kind).toBe('aborted');
    expect(loopback.server.requests).toHaveLength(0);
  });

  it('reports invalid_response for a body that is not JSON', async () => {
    loopback.server.raw(200, '<html>502 Bad Gateway</html>', { 'content-type': 'text/html' });
    const error = await failure(model().chat(request));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('not a chat completion');
  });

  it('reports invalid_response for a JSON content type with a broken body', async () => {
    loopback.server.raw(200, '{"choices": [', { 'content-type': 'application/json' });
    const error = await failure(model().chat(request));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('not valid JSON');
  });

  it('reports invalid_response for JSON that is not a completion', async () => {
    loopback.server.raw(200, JSON.stringify({ hello: 'world' }));
    expect((await failure(model().chat(request))).kind).toBe('invalid_response');
  });

  it('maps 401 to auth without echoing the key the server quotes back', async () => {
    loopback.server.fail(401, {
      message: `Incorrect API key provided: ${secretKey}. You can find your API key at ...`,
    });
    const error = await failure(model().chat(request));
    expect(error.kind).toBe('auth');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(401);
    expect(error.message).toContain('Incorrect API key provided');
  });

  it('redacts a key of any shape, not only sk- keys', async () => {
    const localKey = 'vllm-local-token-4711';
    loopback.server.fail(403, { message: `key ${localKey} may not use this model` });
    const chatModel = new OpenAIChatModel({
      baseUrl: loopback.server.url,
      model: 'm',
      apiKey: localKey,
      maxRetries: 0,
    });
    const error = await failure(chatModel.chat(request));
    expect(error.kind).toBe('auth');
    expect(error.message).not.toContain(localKey);
    expect(error.message).toContain('[redacted]');
  });

  it('maps 400 and 404 to bad_request, not retried', async () => {
    loopback.server
      .fail(400, { message: 'tool_choice is not supported' })
      .fail(404, { message: 'model "nope" not found' });
    const first = await failure(model({ maxRetries: 2 }).chat(request));
    expect(first.kind).toBe('bad_request');
    expect(first.status).toBe(400);
    expect(first.message).toContain('tool_choice is not supported');
    const second = await failure(model({ maxRetries: 2 }).chat(request));
    expect(second.kind).toBe('bad_request');
    expect(second.message).toContain('not found');
    expect(loopback.server.requests).toHaveLength(2);
  });

  it('says which address it cannot reach, without the key', async () => {
    const closed = await startChatServer();
    const closedUrl = closed.url;
    await closed.close();
    const unreachable = new OpenAIChatModel({ baseUrl: closedUrl, model: 'm', apiKey: secretKey, maxRetries: 0 });
    const error = await failure(unreachable.chat(request));
    expect(error.kind).toBe('connection');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(`cannot reach ${closedUrl}: connection refused`);
  });

  it('explains a port that fetch refuses', async () => {
    const blocked = new OpenAIChatModel({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      apiKey: secretKey,
      maxRetries: 0,
    });
    const error = await failure(blocked.chat(request));
    expect(error.kind).toBe('connection');
    expect(error.message).toBe(
      'cannot reach http://127.0.0.1:9/v1: connection refused by fetch itself (the port is on its blocked list)',
    );
  });

  it('keeps credentials in the base URL out of messages', async () => {
    const withUser = new OpenAIChatModel({
      baseUrl: 'http://user:hunter2@127.0.0.1:9/v1',
      model: 'm',
      apiKey: secretKey,
      maxRetries: 0,
    });
    const error = await failure(withUser.chat(request));
    expect(error.message).not.toContain('hunter2');
    expect(error.message).toContain('http://127.0.0.1:9/v1');
  });
});
