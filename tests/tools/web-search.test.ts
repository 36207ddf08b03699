// web_search against a loopback SerpApi: results, empty results, retries, errors, timeouts, configuration.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/tools/registry.js';
import { webSearchTool, type WebSearchOptions } from '../../src/tools/web-search.js';
import type { ToolResult } from '../../src/engine/tool-port.js';
import { serpApiError, serpApiResults, startSerpApiServer, type SerpApiServer } from '../support/serpapi-server.js';
import { until } from '../support/helpers.js';

const API_KEY = 'test-key-0123456789';
let server: SerpApiServer;

beforeEach(async () => {
  server = await startSerpApiServer();
});
afterEach(() => server.close());

function search(args: object, options: WebSearchOptions = {}, signal?: AbortSignal): Promise<ToolResult> {
  const tool = webSearchTool({ apiKey: API_KEY, baseUrl: server.url, retryDelayMs: 10, timeoutMs: 2_000, ...options });
  return new ToolRegistry([tool]).execute({ id: 's1', name: 'web_search', arguments: JSON.stringify(args) }, signal);
}

function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`expected an error, got ok: ${result.content}`);
  expect(result.error.message).not.toContain(API_KEY);
  return result.error;
}

const sixResults = Array.from({ length: 6 }, (_, index) => ({
  title: `Result ${index + 1}`,
  link: `https://example.com/${index + 1}`,
  snippet: `Snippet ${index + 1}.`,
  ...(index === 0 ? { date: 'Mar 3, 2026' } : {}),
}));

describe('web_search', () => {
  it('returns numbered results, five by default, and sends the query, location and key', async () => {
    server.reply(200, serpApiResults(sixResults));
    const result = await search({ query: 'stage pipelines', location: 'Austin, Texas, United States' });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.content.split('\n\n')).toHaveLength(5);
    expect(result.content).toMatch(
      /^1\. Result 1\n {3}https:\/\/example\.com\/1\n {3}Date: Mar 3, 2026\n {3}Snippet 1\.\n\n2\. Result 2\n/,
    );
    expect(result.content).not.toContain('Result 6');
    const sent = server.requests[0]!.searchParams;
    expect(Object.fromEntries(sent)).toEqual({
      engine: 'google',
      q: 'stage pipelines',
      api_key: API_KEY,
      location: 'Austin, Texas, United States',
    });
  });

  it('slices to num_results', async () => {
    server.reply(200, serpApiResults(sixResults));
    const result = await search({ query: 'x', num_results: 2 });
    expect(result.ok && result.content.split('\n\n').map((block) => block.split('\n')[0])).toEqual([
      '1. Result 1',
      '2. Result 2',
    ]);
  });

  it('reports an empty result when there are no organic results', async () => {
    server.reply(200, { search_metadata: { status: 'Success' }, organic_results: [] });
    expect(await search({ query: 'nothing' })).toMatchObject({ ok: true, empty: true });
    server.reply(200, {
      search_metadata: { status: 'Success' },
      error: "Google hasn't returned any results for this query.",
    });
    expect(await search({ query: 'nothing at all' })).toMatchObject({ ok: true, empty: true });
  });

  it('retries a 429 and then succeeds', async () => {
    server.reply(429, { error: 'Too many requests' }).reply(200, serpApiResults(sixResults.slice(0, 1)));
    const result = await search({ query: 'retry me' });
    expect(result).toMatchObject({ ok: true, content: expect.stringMatching(/^1\. Result 1/) });
    expect(server.requests).toHaveLength(2);
  });

  it("caps a server's Retry-After at maxRetryDelayMs", async () => {
    server
      .reply(429, { error: 'slow down' }, { 'retry-after': '30' })
      .reply(200, serpApiResults(sixResults.slice(0, 1)));
    const started = Date.now();
    expect(await search({ query: 'x' }, { maxRetryDelayMs: 50 })).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('gives up on repeated 500s with a retryable error', async () => {
    server
      .reply(500, { error: 'Internal failure' })
      .reply(500, { error: 'Internal failure' })
      .reply(500, { error: 'Internal failure' });
    const error = errorOf(await search({ query: 'broken' }, { retries: 2 }));
    expect(error).toMatchObject({
      kind: 'failed',
      retryable: true,
      message: 'Tool "web_search" failed: SerpApi answered HTTP 500: Internal failure.',
    });
    expect(server.requests).toHaveLength(3);
  });

  it("turns SerpApi's error payload into a tool error with SerpApi's message", async () => {
    server.reply(200, serpApiError('Unsupported `xx` location - location parameter.'));
    expect(errorOf(await search({ query: 'x', location: 'xx' }))).toMatchObject({
      kind: 'failed',
      message: expect.stringContaining('Unsupported `xx` location'),
    });
  });

  it("reads SerpApi's message from an HTTP 400 error payload, without retrying", async () => {
    server.reply(400, serpApiError('Invalid location parameter.'));
    expect(errorOf(await search({ query: 'x', location: 'nowhere' }))).toMatchObject({
      kind: 'failed',
      retryable: false,
      message: expect.stringContaining('HTTP 400: Invalid location parameter.'),
    });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps the key out of a 401 message even when the server quotes it', async () => {
    server.reply(401, {
      error: `Invalid API key ${API_KEY}. Your API key should be here: https://serpapi.com/manage-api-key`,
    });
    const error = errorOf(await search({ query: 'x' }));
    expect(error).toMatchObject({ kind: 'failed', retryable: false });
    expect(error.message).toContain('HTTP 401: Invalid API key [redacted]');
  });

  it('ends a hanging request at its timeout', async () => {
    server.hang();
    const started = Date.now();
    const error = errorOf(await search({ query: 'slow' }, { timeoutMs: 200 }));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops when the run signal aborts', async () => {
    server.hang();
    const controller = new AbortController();
    const asked = server.requests.length;
    const pending = search({ query: 'cancel' }, {}, controller.signal);
    // Aborted while the search server holds the request.
    await until(() => server.requests.length > asked, 'the search request to arrive');
    controller.abort();
    expect(errorOf(await pending).kind).toBe('aborted');
  });

  it('names the variable to set when no key is configured, without calling out', async () => {
    const previous = process.env.SERPAPI_API_KEY;
    delete process.env.SERPAPI_API_KEY;
    try {
      const error = errorOf(await search({ query: 'x' }, { apiKey: undefined }));
      expect(error).toMatchObject({
        kind: 'failed',
        retryable: false,
        message: expect.stringContaining('SERPAPI_API_KEY'),
      });
      expect(server.requests).toHaveLength(0);
    } finally {
      if (previous !== undefined) process.env.SERPAPI_API_KEY = previous;
    }
  });

  it('reads SERPAPI_API_KEY and SERPAPI_BASE_URL when the tool is created', async () => {
    const previous = { key: process.env.SERPAPI_API_KEY, base: process.env.SERPAPI_BASE_URL };
    process.env.SERPAPI_API_KEY = 'env-key';
    process.env.SERPAPI_BASE_URL = server.url;
    const tool = webSearchTool({ retryDelayMs: 10 });
    for (const [name, value] of Object.entries({ SERPAPI_API_KEY: previous.key, SERPAPI_BASE_URL: previous.base })) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    server.reply(200, serpApiResults(sixResults.slice(0, 1)));
    const result = await new ToolRegistry([tool]).execute({
      id: 's',
      name: 'web_search',
      arguments: '{"query":"env"}',
    });
    expect(result.ok).toBe(true);
    expect(server.requests[0]!.searchParams.get('api_key')).toBe('env-key');
  });

  it.each([
    ['an empty query', { query: '   ' }],
    ['num_results above 10', { query: 'x', num_results: 11 }],
    ['an unknown key', { query: 'x', page: 2 }],
  ])('rejects %s as invalid arguments', async (_label, args) => {
    expect(errorOf(await search(args)).kind).toBe('invalid_arguments');
    expect(server.requests).toHaveLength(0);
  });

  it('reports a reply that is not JSON', async () => {
    server.reply(200, '<html>proxy error</html>');
    expect(errorOf(await search({ query: 'x' })).message).toMatch(/not JSON/);
  });
});
