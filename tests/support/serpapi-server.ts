// A scripted loopback SerpApi (GET /search.json) on 127.0.0.1, for web_search tests.
//
// const server = await startSerpApiServer();
// server.reply(200, serpApiResults([{ title, link, snippet }]));   queue entries are used in order, one per request
// server.reply(429, { error: 'rate limited' }, { 'retry-after': '0' });
// server.hang();                                                  never answers (until close)
// webSearchTool({ apiKey: 'test-key', baseUrl: server.url })
// A request with nothing queued gets 418. Recorded: server.requests (the parsed URL of each). Always `await server.close()`.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Entry = { kind: 'reply'; status: number; body: unknown; headers: Record<string, string> } | { kind: 'hang' };

export interface SerpApiServer {
  readonly url: string;
  readonly requests: URL[];
  reply(status: number, body: unknown, headers?: Record<string, string>): SerpApiServer;
  hang(): SerpApiServer;
  close(): Promise<void>;
}

export interface FakeResult {
  title: string;
  link: string;
  snippet?: string;
  date?: string;
}

/** A successful SerpApi payload with these organic results. */
export function serpApiResults(results: FakeResult[]): Record<string, unknown> {
  return {
    search_metadata: { id: 'test', status: 'Success' },
    search_parameters: { engine: 'google' },
    organic_results: results.map((result, index) => ({ position: index + 1, source: 'test', ...result })),
  };
}

/** SerpApi's own error payload (HTTP 200 or 4xx with `search_metadata.status: "Error"`). */
export function serpApiError(message: string): Record<string, unknown> {
  return { search_metadata: { id: 'test', status: 'Error' }, error: message };
}

export async function startSerpApiServer(): Promise<SerpApiServer> {
  const queue: Entry[] = [];
  const requests: URL[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(url);
    const entry = queue.shift();
    if (url.pathname !== '/search.json' || request.method !== 'GET')
      return send(response, 404, { error: `unexpected ${request.method} ${url.pathname}` }, {});
    if (!entry) return send(response, 418, { error: `serpapi-server: unexpected request #${requests.length}` }, {});
    if (entry.kind === 'hang') return void hanging.push(response);
    send(response, entry.status, entry.body, entry.headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const api: SerpApiServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(status, body, headers = {}) {
      queue.push({ kind: 'reply', status, body, headers });
      return api;
    },
    hang() {
      queue.push({ kind: 'hang' });
      return api;
    },
    close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
    ...headers,
  });
  response.end(text);
}
