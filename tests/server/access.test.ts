// The attacks a loopback server meets from web pages, tried from the outside with raw HTTP (so Host and Origin are
// whatever an attacker's browser would send): cross-site POSTs, DNS rebinding, foreign origins, blank tokens.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import {
  jsonPost,
  loopbackModelEnv,
  startTestServe,
  useServes,
  waitFor,
  waitForStatus,
  type TestServe,
} from './serve-support.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch would not let a test set Host). */
function raw(
  serve: TestServe,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const port = serve.running.port;
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          host: `127.0.0.1:${port}`,
          ...headers,
          ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

const codeOf = (answer: RawAnswer): string => (JSON.parse(answer.body) as { error: { code: string } }).error.code;
const task = JSON.stringify({ task: 'what is 1 + 1?' });
const evil = 'http://evil.example';

async function runCount(serve: TestServe): Promise<number> {
  return ((await (await serve.call('/v1/runs')).json()) as { runs: unknown[] }).runs.length;
}

describe('a default serve against cross-site and rebinding requests', () => {
  let serve: TestServe;
  let own: string;
  beforeAll(async () => {
    serve = await startTestServe({});
    own = `http://127.0.0.1:${serve.running.port}`;
  });
  afterAll(() => serve.close());

  it.each([
    ['text/plain from a foreign page', { 'content-type': 'text/plain', origin: evil }],
    ['text/plain with no Origin', { 'content-type': 'text/plain' }],
    ['text/plain from its own origin', { 'content-type': 'text/plain;charset=UTF-8', origin: 'OWN' }],
    ['a form post', { 'content-type': 'application/x-www-form-urlencoded', origin: evil }],
    ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }],
    ['no content type', {}],
  ])('POST /v1/runs with %s is 415 and starts nothing', async (_name, headers) => {
    const withOrigin = Object.fromEntries(
      Object.entries(headers).map(([key, value]) => [key, value === 'OWN' ? own : value]),
    );
    const answer = await raw(serve, 'POST', '/v1/runs', withOrigin, task);
    expect(answer.status).toBe(415);
    expect(codeOf(answer)).toBe('unsupported_media_type');
    expect(JSON.parse(answer.body).error.message).toMatch(/send Content-Type: application\/json/);
    expect(await runCount(serve)).toBe(0);
  });

  it.each([
    ['POST', '/v1/runs'],
    ['POST', '/v1/runs/some-run/cancel'],
    ['POST', '/v1/runs/some-run/decisions'],
  ])('%s %s with JSON from a foreign Origin is 403', async (method, path) => {
    for (const origin of [evil, 'null', `http://127.0.0.1:${serve.running.port + 1}`]) {
      const answer = await raw(
        serve,
        method,
        path,
        { 'content-type': 'application/json', origin },
        path.endsWith('decisions') ? JSON.stringify({ decisions: [{ callId: 'c', approve: true }] }) : task,
      );
      expect(answer.status).toBe(403);
      expect(codeOf(answer)).toBe('forbidden');
      expect(JSON.parse(answer.body).error.message).toMatch(/--allow-origin/);
    }
    expect(await runCount(serve)).toBe(0);
  });

  it('a cancel with no body from a foreign page is 403 too', async () => {
    const answer = await raw(serve, 'POST', '/v1/runs/some-run/cancel', { origin: evil });
    expect(answer.status).toBe(403);
  });

  it.each([
    ['GET', '/v1/runs'],
    ['GET', '/v1/runs/some-run'],
    ['GET', '/v1/health'],
    ['GET', '/'],
    ['POST', '/v1/runs'],
  ])('%s %s under a foreign Host (DNS rebinding) is 403', async (method, path) => {
    for (const host of ['evil.example:8787', 'evil.example', '127.0.0.1.evil.example', 'localhost.evil.example:80']) {
      const answer = await raw(
        serve,
        method,
        path,
        { host, 'content-type': 'application/json' },
        method === 'POST' ? task : undefined,
      );
      expect(answer.status).toBe(403);
      expect(codeOf(answer)).toBe('forbidden');
      expect(JSON.parse(answer.body).error.message).toMatch(/--allow-host NAME/);
    }
  });

  it('answers under its loopback names and from its own pages; CORS stays off', async () => {
    const port = serve.running.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await raw(serve, 'GET', '/v1/runs', { host })).status).toBe(200);
    }
    const started = await raw(
      serve,
      'POST',
      '/v1/runs',
      {
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
        'content-type': 'application/json; charset=utf-8',
      },
      task,
    );
    expect(started.status).toBe(201);
    const runId = (JSON.parse(started.body) as { runId: string }).runId;
    // No Origin at all (curl, SDKs) with a JSON body: judged on Host and type only.
    expect((await raw(serve, 'POST', '/v1/runs', { 'content-type': 'application/json' }, task)).status).toBe(201);
    const read = await raw(serve, 'GET', `/v1/runs/${runId}`, { origin: evil });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await raw(serve, 'OPTIONS', '/v1/runs', {
      origin: evil,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without a token, an Authorization header is ignored', async () => {
    const answer = await raw(serve, 'GET', '/v1/runs', { authorization: 'Bearer sk-whatever-the-sdk-sends' });
    expect(answer.status).toBe(200);
    expect(
      (await raw(serve, 'POST', '/v1/runs', { authorization: 'Bearer x', 'content-type': 'application/json' }, task))
        .status,
    ).toBe(201);
  });
});

describe('a running run and a foreign page', () => {
  const loopback = useLoopbackServer();
  const serves = useServes();

  it('a foreign cancel is refused and the run goes on; its own page cancels it', async () => {
    loopback.server.hang();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'a long one' }))).json()) as {
      runId: string;
    };
    await waitFor(async () => (loopback.server.requests.length > 0 ? true : undefined), 'the model call');
    expect((await raw(serve, 'POST', `/v1/runs/${runId}/cancel`, { origin: evil })).status).toBe(403);
    expect(((await (await serve.call(`/v1/runs/${runId}`)).json()) as { live: boolean }).live).toBe(true);
    expect(
      (await raw(serve, 'POST', `/v1/runs/${runId}/cancel`, { origin: `http://127.0.0.1:${serve.running.port}` }))
        .status,
    ).toBe(202);
    await waitForStatus(serve, runId, ['cancelled']);
  });
});

describe('--allow-host and --allow-origin', () => {
  const serves = useServes();

  it('a named host is answered; an allowed origin may start runs and read with CORS', async () => {
    const serve = await serves.start({}, { allowHosts: ['stageloop.internal'], allowOrigins: ['https://app.example'] });
    expect((await raw(serve, 'GET', '/v1/runs', { host: 'stageloop.internal:8787' })).status).toBe(200);
    expect((await raw(serve, 'GET', '/v1/runs', { host: 'other.internal' })).status).toBe(403);
    const preflight = await raw(serve, 'OPTIONS', '/v1/runs', {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, authorization',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    const started = await raw(
      serve,
      'POST',
      '/v1/runs',
      { origin: 'https://app.example', 'content-type': 'application/json' },
      task,
    );
    expect(started.status).toBe(201);
    expect(started.headers['access-control-allow-origin']).toBe('https://app.example');
    const foreign = await raw(serve, 'GET', '/v1/runs', { origin: evil });
    expect(foreign.status).toBe(200);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(
      (await raw(serve, 'POST', '/v1/runs', { origin: evil, 'content-type': 'application/json' }, task)).status,
    ).toBe(403);
  });
});

describe('tokens at start', () => {
  async function serveExit(
    argv: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; stderr: string; stdout: string }> {
    let stderr = '';
    let stdout = '';
    const streams = {
      stdout: { write: (text: string) => ((stdout += text), true) } as NodeJS.WritableStream,
      stderr: { write: (text: string) => ((stderr += text), true) } as NodeJS.WritableStream,
    };
    const code = await main(['serve', '--port', '0', ...argv], { ...streams, env });
    return { code, stderr, stdout };
  }

  it.each([
    ['a blank --token', ['--token', '        '], {}, /--token is blank/],
    ['an empty --token', ['--token', ''], {}, /--token is blank/],
    [
      'a --token with a space',
      ['--token', 'secret token value'],
      {},
      /--token must be visible ASCII characters without spaces/,
    ],
    ['a --token with a line break', ['--token', 'secret-token\n'], {}, /--token must be visible ASCII/],
    ['a blank STAGELOOP_TOKEN', [], { STAGELOOP_TOKEN: '   \t   ' }, /STAGELOOP_TOKEN is blank/],
    ['a short --token', ['--token', 'abc'], {}, /at least 8 characters/],
    [
      'a bad --allow-origin',
      ['--allow-origin', 'app.example/path'],
      {},
      /--allow-origin "app\.example\/path" is not an origin/,
    ],
    ['a bad --allow-host', ['--allow-host', 'http://x:80'], {}, /--allow-host "http:\/\/x:80" is not a host name/],
  ])('%s is refused before listening, exit 2, in one line', async (_name, argv, env, message) => {
    const result = await serveExit(argv, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).not.toMatch(/listening/);
  });

  it('a token is never written out: not at start, not when a request gets it wrong', async () => {
    const token = 'tok-4f9c2e7a-never-shown';
    const serve = await startTestServe({}, { token });
    try {
      expect(serve.running.notice).not.toContain(token);
      const wrong = await raw(serve, 'GET', '/v1/runs', { authorization: `Bearer ${token}x` });
      expect(wrong.status).toBe(401);
      expect(wrong.body).not.toContain(token);
      expect((await raw(serve, 'GET', '/v1/runs', { authorization: `Bearer ${token}` })).status).toBe(200);
      // The console's own page needs no token; a foreign origin is refused before the token is looked at.
      expect((await raw(serve, 'GET', '/')).status).toBe(200);
      expect(
        (
          await raw(
            serve,
            'POST',
            '/v1/runs',
            { origin: evil, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            task,
          )
        ).status,
      ).toBe(403);
    } finally {
      await serve.close();
    }
  });
});
