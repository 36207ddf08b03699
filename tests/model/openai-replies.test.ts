// OpenAIChatModel: replies validated at the adapter, our own retries (capped retry-after, a wait the signal cancels),
// a socket closed mid-body as a retryable connection error, and the SDK loaded only when a server is used.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ModelError, type ChatRequest } from '../../src/model/types.js';
import { retryDelayMs } from '../../src/model/retry.js';
import { completionBody, textChunk } from '../support/chat-server.js';
import { PROMPTLY_MS } from '../support/helpers.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const request: ChatRequest = { purpose: 'think', messages: [{ role: 'user', content: 'What is 6 * 7?' }] };
const loopback = useLoopbackServer();

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const outcome = await promise.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ModelError);
  return outcome as ModelError;
}

function rawCompletion(
  mutate: (body: { choices: Array<{ message: Record<string, unknown> }>; usage?: Record<string, unknown> }) => void,
): string {
  const body = completionBody({ content: 'forty-two' }) as {
    choices: Array<{ message: Record<string, unknown> }>;
    usage?: Record<string, unknown>;
  };
  mutate(body);
  return JSON.stringify(body);
}

describe('replies are validated at the adapter', () => {
  it.each([
    ['a number', 42],
    ['an object', { text: 'hi' }],
  ])('content that is %s is an invalid_response, never coerced to text', async (_name, content) => {
    loopback.server.raw(
      200,
      rawCompletion((body) => (body.choices[0]!.message.content = content)),
    );
    const error = await failure(loopback.model().chat(request));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toMatch(/as message\.content, where text was expected/);
  });

  it('content that is an array of parts is read part by part: text parts are the text, thinking parts the reasoning', async () => {
    loopback.server.raw(
      200,
      rawCompletion(
        (body) =>
          (body.choices[0]!.message.content = [
            { type: 'thinking', thinking: [{ type: 'text', text: 'Seventeen times 23.' }] },
            { type: 'text', text: '391' },
          ]),
      ),
    );
    const response = await loopback.model().chat(request);
    expect([response.content, response.reasoning]).toEqual(['391', 'Seventeen times 23.']);
  });

  it('a tool call whose arguments are an object instead of text (as some servers for open models send) is read as that JSON', async () => {
    loopback.server.raw(
      200,
      rawCompletion(
        (body) =>
          (body.choices[0]!.message.tool_calls = [
            { id: 'c1', type: 'function', function: { name: 'calculator', arguments: { expression: '1' } } },
          ]),
      ),
    );
    expect((await loopback.model().chat(request)).toolCalls).toEqual([
      { id: 'c1', name: 'calculator', arguments: '{"expression":"1"}' },
    ]);
  });

  it('a tool call whose arguments are neither text nor an object is an invalid_response', async () => {
    loopback.server.raw(
      200,
      rawCompletion(
        (body) =>
          (body.choices[0]!.message.tool_calls = [
            { id: 'c1', type: 'function', function: { name: 'calculator', arguments: 42 } },
          ]),
      ),
    );
    expect((await failure(loopback.model().chat(request))).kind).toBe('invalid_response');
  });

  it('a streamed content delta that is not text is an invalid_response', async () => {
    loopback.server.stream([
      textChunk('fine'),
      { id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 7 }, finish_reason: null }] },
    ]);
    const error = await failure(loopback.model().chatStream(request, () => {}));
    expect(error.kind).toBe('invalid_response');
  });

  it.each([
    ['strings', { prompt_tokens: 'abc', completion_tokens: '5' }],
    ['a negative count', { prompt_tokens: -1_000_000, completion_tokens: 5 }],
    ['a fraction', { prompt_tokens: 10.5, completion_tokens: 5 }],
    ['a count too large to be exact', { prompt_tokens: 1e20, completion_tokens: 5 }],
  ])('usage with %s is treated as not reported and estimated', async (_name, usage) => {
    loopback.server.raw(
      200,
      rawCompletion((body) => (body.usage = usage)),
    );
    const response = await loopback.model().chat(request);
    expect(response.usage.estimated).toBe(true);
    expect(Number.isSafeInteger(response.usage.inputTokens) && response.usage.inputTokens > 0).toBe(true);
    expect(Number.isSafeInteger(response.usage.outputTokens) && response.usage.outputTokens > 0).toBe(true);
  });

  it('a cached count above the input count is cut to the input count', async () => {
    loopback.server.replyWith({ content: 'ok', usage: { input: 10, output: 2, cached: 50 } });
    expect((await loopback.model().chat(request)).usage.cachedInputTokens).toBe(10);
  });
});

describe('a socket closed in the middle of the body', () => {
  const cutOff = () =>
    loopback.server.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      response.write('{"choices": [');
      setTimeout(() => response.destroy(), 20);
    });

  it('is a retryable connection error, not invalid_response', async () => {
    cutOff();
    const error = await failure(loopback.model().chat(request));
    expect(error.kind).toBe('connection');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/lost the connection to .* in the middle of its answer/);
  });

  it('is retried, and the retry can succeed', async () => {
    cutOff();
    loopback.server.replyWith({ content: 'second try' });
    const response = await loopback.model({ maxRetries: 1 }).chat(request);
    expect(response.content).toBe('second try');
    expect(loopback.server.requests).toHaveLength(2);
  });
});

describe('retries', () => {
  it('a retry-after above the cap waits only the cap (maxRetryAfterMs)', async () => {
    loopback.server.fail(429, { headers: { 'retry-after': '40' } }).replyWith({ content: 'after the cap' });
    const started = Date.now();
    const response = await loopback.model({ maxRetries: 1, maxRetryAfterMs: 200 }).chat(request);
    expect(response.content).toBe('after the cap');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
  });

  it('an abort during a 40 s retry-after wait returns at once', async () => {
    loopback.server.fail(429, { headers: { 'retry-after': '40' } });
    const controller = new AbortController();
    const pending = loopback.model({ maxRetries: 2, maxRetryAfterMs: 60_000 }).chat(request, controller.signal);
    await loopback.server.answered(1);
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(Date.now() - abortedAt).toBeLessThan(PROMPTLY_MS);
    expect(loopback.server.requests).toHaveLength(1);
  });

  it('the delay: retry-after-ms, then retry-after in seconds or as a date, each capped; else a backoff', () => {
    const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
    expect(retryDelayMs(headers({ 'retry-after-ms': '250' }), 0, 10_000)).toBe(250);
    expect(retryDelayMs(headers({ 'retry-after': '2' }), 0, 10_000)).toBe(2_000);
    expect(retryDelayMs(headers({ 'retry-after': '40' }), 0, 10_000)).toBe(10_000);
    expect(retryDelayMs(headers({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() }), 0, 10_000)).toBe(
      10_000,
    );
    const backoff = retryDelayMs(undefined, 2, 10_000);
    expect(backoff).toBeGreaterThanOrEqual(1_500);
    expect(backoff).toBeLessThanOrEqual(2_000);
  });

  it('a stream that already delivered text is not retried', async () => {
    loopback.server.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${JSON.stringify(textChunk('half'))}\n\n`);
      setTimeout(() => response.destroy(), 20);
    });
    loopback.server.replyWith({ content: 'never asked' });
    const events: unknown[] = [];
    const error = await failure(loopback.model({ maxRetries: 2 }).chatStream(request, (event) => events.push(event)));
    expect(error.kind).toBe('connection');
    expect(events).toEqual([{ type: 'text', delta: 'half' }]);
    expect(loopback.server.requests).toHaveLength(1);
  });
});

describe('the openai SDK loads lazily', () => {
  it('importing the adapter and making a model loads no SDK module; the first request does', () => {
    // A resolve hook in the child records every specifier that reaches the openai package.
    const hooks = `data:text/javascript,${encodeURIComponent("export async function resolve(specifier, context, next) { if (/^openai(\\/|$)/.test(specifier)) process.stderr.write('LOADED ' + specifier + '\\n'); return next(specifier, context); }")}`;
    const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(hooks)});
      const { OpenAIChatModel } = await import('./src/model/openai-model.ts');
      const model = new OpenAIChatModel({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxRetries: 0 });
      process.stderr.write('MADE\\n');
      await model.chat({ purpose: 'think', messages: [{ role: 'user', content: 'hi' }] }).catch((error) => process.stderr.write('FAILED ' + error.kind + '\\n'));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    const lines = child.stderr.split('\n');
    const made = lines.indexOf('MADE');
    expect(made).toBeGreaterThanOrEqual(0);
    expect(lines.slice(0, made).some((line) => line.startsWith('LOADED'))).toBe(false);
    expect(lines.slice(made).some((line) => line.startsWith('LOADED openai'))).toBe(true);
    expect(lines).toContain('FAILED connection');
  });
});
