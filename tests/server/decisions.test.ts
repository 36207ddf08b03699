// A run decided over HTTP goes on in the server's run host: its event stream is live again, and a shutdown waits for it.
import { describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { main } from '../../app/cli/main.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { serverApp } from '../../src/server/app.js';
import { RunHost } from '../../src/server/run-host.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, loopbackModelEnv, readEvents, startTestServe, useServes, type TestServe } from './serve-support.js';

const loopback = useLoopbackServer();
const serves = useServes();
const modelEnv = () => loopbackModelEnv(loopback.server.url);
const quiet = { write: () => true } as unknown as NodeJS.WritableStream;

/** A CLI run with --approve-tools calculator in the serve's store, paused at its one calculator call. */
async function pausedRun(serve: TestServe): Promise<{ runId: string; callId: string }> {
  let stdout = '';
  const out = { write: (text: string) => ((stdout += text), true) } as NodeJS.WritableStream;
  const code = await main(
    ['run', '--json', '--approve-tools', 'calculator', '--store', serve.storeFile, 'What is 2 + 2?'],
    { stdout: out, stderr: quiet, env: modelEnv() },
  );
  expect(code).toBe(4);
  const paused = JSON.parse(stdout) as { runId: string; pending: Array<{ id: string }> };
  return { runId: paused.runId, callId: paused.pending[0]!.id };
}

describe('decisions over HTTP continue the run in the server', () => {
  it('after an approval, GET /v1/runs/:id/events streams the resumed run live through run_finished', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"2 + 2"}' }]);
    loopback.server.replyWith({ content: 'It is 4.' });
    const serve = await serves.start(modelEnv());
    const { runId, callId } = await pausedRun(serve);
    const decided = await serve.call(
      `/v1/runs/${runId}/decisions`,
      jsonPost({ decisions: [{ callId, approve: true }] }),
    );
    expect(decided.status).toBe(202);
    const events = await readEvents(
      await serve.call(`/v1/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } }),
    );
    const names = events.map((event) => event.event);
    // Live events with their seq, not the one `stored` status a run the server does not hold gets.
    expect(names).not.toContain('stored');
    expect(names).toContain('tool_result');
    expect(names.at(-2)).toBe('run_finished');
    expect(names.at(-1)).toBe('end');
    const answer = events.find((event) => event.event === 'answer');
    expect(JSON.parse(answer!.data).data.text).toBe('It is 4.');
    const numbered = events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
    expect(numbered).toEqual(numbered.map((_, index) => index + 1));
  });

  it('a shutdown during the resumed run waits for it: it is recorded cancelled at a checkpoint, not left running', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"2 + 2"}' }]);
    loopback.server.hang();
    const serve = await startTestServe(modelEnv());
    try {
      const { runId, callId } = await pausedRun(serve);
      const decided = await serve.call(
        `/v1/runs/${runId}/decisions`,
        jsonPost({ decisions: [{ callId, approve: true }] }),
      );
      expect(decided.status).toBe(202);
      // The resumed run's model call (the second request) hangs: the run is mid-turn when the server stops.
      await loopback.server.received(2);
      await serve.running.stop();
      const store = sqliteStore(serve.storeFile);
      try {
        expect((await store.get(runId))?.status).toBe('cancelled');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dirname(serve.storeFile), { recursive: true, force: true });
    }
  });

  it('refuses a decision while the server drains (503 unavailable), leaving the run waiting', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"2 + 2"}' }]);
    const serve = await serves.start(modelEnv());
    const { runId, callId } = await pausedRun(serve);
    // A drained host with the serve's own store and decider: the app in front of it, asked as a client would.
    const store = sqliteStore(serve.storeFile);
    try {
      const host = new RunHost(() => Promise.reject(new Error('starts nothing')));
      await host.drain('shutting down');
      const app = serverApp({
        store,
        host,
        pipelines: [],
        defaultPipeline: 'react',
        shownSlots: [],
        assemble: () => Promise.reject(new Error('assembles nothing')),
        decide: () => Promise.reject(new Error('must not be asked')),
      });
      const refused = await app.request(`/v1/runs/${runId}/decisions`, {
        ...jsonPost({ decisions: [{ callId, approve: true }] }),
        headers: { 'content-type': 'application/json', host: '127.0.0.1' },
      });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unavailable');
      expect((await store.get(runId))?.status).toBe('interrupted');
    } finally {
      await store.close();
    }
  });
});
