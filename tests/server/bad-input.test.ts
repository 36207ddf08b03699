// Every bad request gets a JSON error { error: { code, message } } naming the problem, never a stack; and auth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../app/serve.js';
import { jsonPost, startTestServe, waitFor, type TestServe } from './serve-support.js';

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const text = await response.text();
  expect(text).not.toMatch(/\n\s+at /);
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('bad input', () => {
  let serve: TestServe;
  let finishedRun: string;
  beforeAll(async () => {
    serve = await startTestServe({});
    finishedRun = (
      (await (await serve.call('/v1/runs', jsonPost({ task: 'what is 1 + 1?' }))).json()) as { runId: string }
    ).runId;
    await waitFor(
      async () =>
        ((await (await serve.call(`/v1/runs/${finishedRun}`)).json()) as { run: { status: string } }).run.status ===
        'completed'
          ? true
          : undefined,
      'the run',
    );
  });
  afterAll(() => serve.close());

  it.each([
    ['a body that is not JSON', '{"task": ', 'usage', /not JSON/],
    ['no task', {}, 'usage', /^task: /],
    ['an empty task', { task: '   ' }, 'usage', /^task: the task must not be empty/],
    ['a task of the wrong type', { task: 42 }, 'usage', /^task: .*string/],
    ['an unknown field', { task: 'x', tsk: 'y' }, 'usage', /tsk/],
    [
      'an unknown pipeline',
      { task: 'x', pipeline: 'nope' },
      'usage',
      /^pipeline: unknown pipeline "nope": choose one of .*react/,
    ],
    ['a bad option', { task: 'x', options: { maxIterations: 0 } }, 'usage', /^options\.maxIterations: /],
    ['an unknown option', { task: 'x', options: { temperature: 2 } }, 'usage', /temperature/],
  ])('POST /v1/runs with %s is a 400 naming it', async (_name, body, code, message) => {
    const problem = await errorOf(await serve.call('/v1/runs', jsonPost(body)));
    expect(problem).toMatchObject({ status: 400, code });
    expect(problem.message).toMatch(message);
  });

  it('a body over the limit is a 413', async () => {
    // A server of its own: after a 413 the server drops the half-sent upload's connection, which fetch would reuse.
    const own = await startTestServe({});
    try {
      const problem = await errorOf(await own.call('/v1/runs', jsonPost({ task: 'x'.repeat(2 * 1024 * 1024) })));
      expect(problem).toMatchObject({ status: 413, code: 'too_large' });
    } finally {
      await own.close();
    }
  });

  it.each([
    ['GET', '/v1/runs/no-such-run'],
    ['GET', '/v1/runs/no-such-run/events'],
    ['POST', '/v1/runs/no-such-run/cancel'],
  ])('%s %s for an unknown run is a 404', async (method, path) => {
    expect(await errorOf(await serve.call(path, { method }))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('decisions: an unknown run is a 404, a bad body a 400, a run not waiting a 409', async () => {
    const decision = { decisions: [{ callId: 'call-1', approve: true }] };
    expect(await errorOf(await serve.call('/v1/runs/no-such-run/decisions', jsonPost(decision)))).toMatchObject({
      status: 404,
    });
    const bad = await errorOf(
      await serve.call(`/v1/runs/${finishedRun}/decisions`, jsonPost({ decisions: [{ callId: 'c', approve: 'yes' }] })),
    );
    expect(bad).toMatchObject({ status: 400 });
    expect(bad.message).toMatch(/^decisions\.0\.approve: /);
    const notWaiting = await errorOf(await serve.call(`/v1/runs/${finishedRun}/decisions`, jsonPost(decision)));
    expect(notWaiting).toMatchObject({ status: 409, code: 'conflict' });
    expect(notWaiting.message).toMatch(/this run is not waiting for a decision/);
  });

  it('a bad Last-Event-ID, a bad list query and an unknown endpoint', async () => {
    expect(
      await errorOf(await serve.call(`/v1/runs/${finishedRun}/events`, { headers: { 'last-event-id': 'abc' } })),
    ).toMatchObject({ status: 400, code: 'usage' });
    const query = await errorOf(await serve.call('/v1/runs?limit=lots'));
    expect(query).toMatchObject({ status: 400 });
    expect(query.message).toMatch(/^limit: /);
    expect(await errorOf(await serve.call('/v1/nothing'))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('CORS is off: no Access-Control-Allow-Origin header, even for a cross-origin request', async () => {
    const response = await serve.call('/v1/health', { headers: { origin: 'http://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('auth', () => {
  it('with a token every API request needs Authorization: Bearer; the console page itself is open', async () => {
    const serve = await startTestServe({}, { token: 'secret-token-1' });
    try {
      expect(await errorOf(await serve.call('/v1/runs'))).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(
        await errorOf(await serve.call('/v1/runs', { headers: { authorization: 'Bearer wrong-token' } })),
      ).toMatchObject({ status: 401 });
      expect(await errorOf(await serve.call('/v1/runs', jsonPost({ task: 'x' })))).toMatchObject({ status: 401 });
      const allowed = await serve.call('/v1/runs', { headers: { authorization: 'Bearer secret-token-1' } });
      expect(allowed.status).toBe(200);
      expect((await serve.call('/')).status).toBe(200);
    } finally {
      await serve.close();
    }
  });

  it('without a token no header is needed', async () => {
    const serve = await startTestServe({});
    try {
      expect((await serve.call('/v1/runs')).status).toBe(200);
    } finally {
      await serve.close();
    }
  });

  it('refuses to bind a non-loopback address without a token, before listening', async () => {
    await expect(startServe({ port: 0, host: '0.0.0.0' }, {})).rejects.toThrow(
      /binding 0\.0\.0\.0 would let anyone on the network start runs: set a token with --token/,
    );
  });
});
