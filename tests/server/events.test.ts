// GET /v1/runs/:id/events: a reader whose connection drops reconnects with Last-Event-ID and misses nothing.
import { describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, readEvents, useServes, loopbackModelEnv, waitFor } from './serve-support.js';

const loopback = useLoopbackServer();
const serves = useServes();
const modelEnv = () => loopbackModelEnv(loopback.server.url);

describe('run events over SSE', () => {
  it('resumes after a dropped connection with exactly the events after Last-Event-ID', async () => {
    // The first model call hangs, so the run is live while the reader drops and comes back.
    loopback.server.hang();
    const serve = await serves.start(modelEnv());
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'slow one' }))).json()) as {
      runId: string;
    };
    const firstPart = await readEvents(await serve.call(`/v1/runs/${runId}/events`), (_event, all) => all.length === 2);
    expect(firstPart.map((event) => event.id)).toEqual(['1', '2']);
    await waitFor(async () => (loopback.server.requests.length > 0 ? true : undefined), 'the model call');
    await serve.call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    const rest = await readEvents(await serve.call(`/v1/runs/${runId}/events`, { headers: { 'last-event-id': '2' } }));
    const whole = await readEvents(await serve.call(`/v1/runs/${runId}/events`));
    expect(rest.at(-1)!.event).toBe('end');
    expect([...firstPart, ...rest].map((event) => event.id)).toEqual(whole.map((event) => event.id));
    expect([...firstPart, ...rest].map((event) => event.data)).toEqual(whole.map((event) => event.data));
    expect(
      whole.some((event) => event.event === 'run_finished' && JSON.parse(event.data).data.status === 'cancelled'),
    ).toBe(true);
  });

  it('?after=N works like Last-Event-ID (for readers that cannot set headers)', async () => {
    loopback.server.replyWith({ content: 'ok' });
    const serve = await serves.start(modelEnv());
    const started = await serve.call('/v1/runs', jsonPost({ task: 'quick' }, { accept: 'text/event-stream' }));
    const all = (await readEvents(started)).filter((event) => event.id !== undefined);
    const runId = JSON.parse(all[0]!.data).runId as string;
    const tail = (await readEvents(await serve.call(`/v1/runs/${runId}/events?after=${all.length - 1}`))).filter(
      (event) => event.id !== undefined,
    );
    expect(tail.map((event) => event.id)).toEqual([String(all.length)]);
  });

  it('GET /v1/runs as an event stream says when each run starts and ends here', async () => {
    loopback.server.replyWith({ content: 'ok' });
    const serve = await serves.start(modelEnv());
    const feed = await serve.call('/v1/runs', { headers: { accept: 'text/event-stream' } });
    expect(feed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    let runId = '';
    const started = serve
      .call('/v1/runs', jsonPost({ task: 'watched' }))
      .then(async (response) => (runId = ((await response.json()) as { runId: string }).runId));
    const seen = await readEvents(
      feed,
      (event) => event.event === 'run' && JSON.parse(event.data).status === 'completed',
    );
    await started;
    const runs = seen
      .filter((event) => event.event === 'run')
      .map((event) => JSON.parse(event.data) as { runId: string; status: string; task: string });
    expect(runs.every((run) => run.runId === runId && run.task === 'watched')).toBe(true);
    expect(runs.at(-1)!.status).toBe('completed');
  });

  it('a run this server did not start gets its stored status and the end', async () => {
    loopback.server.replyWith({ content: 'ok' });
    const serve = await serves.start(modelEnv());
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'quick' }))).json()) as { runId: string };
    await waitFor(
      async () =>
        ((await (await serve.call(`/v1/runs/${runId}`)).json()) as { live: boolean; run: { status: string } }).run
          .status === 'completed' || undefined,
      'completion',
    );
    const file = serve.storeFile;
    await serve.running.stop();
    const restarted = await serves.start(modelEnv(), { store: file });
    const events = await readEvents(await restarted.call(`/v1/runs/${runId}/events`));
    expect(events.map((event) => event.event)).toEqual(['stored', 'end']);
    expect(JSON.parse(events[0]!.data)).toEqual({ runId, status: 'completed', live: false });
  });
});
