// serve on a PostgreSQL store follows a run another process holds through LISTEN/NOTIFY: each write of that process
// reaches the reader as a `stored` event, the end once the run is over, with no polling of the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../app/serve.js';
import { postgresStore } from '../../src/store/postgres-store.js';
import { runPostgresTests, startPostgres, type PostgresInstance } from '../support/postgres-server.js';
import { entry, header, liveOwner, outcome } from '../store/conformance.js';
import { readEvents } from './serve-support.js';

let server: PostgresInstance | undefined;
let serve: RunningServe | undefined;

describe.runIf(runPostgresTests)('serve on a PostgreSQL store', () => {
  beforeAll(async () => {
    server = await startPostgres();
    serve = await startServe({ port: 0, host: '127.0.0.1', store: `${server.url}?schema=watched` }, {});
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    await server?.stop();
  }, 60_000);

  it('streams the progress of a run written by another process as it happens, then the end', async () => {
    const worker = postgresStore(server!.url, { schema: 'watched' });
    const claim = await worker.create(header('elsewhere'), { ...liveOwner('worker'), host: 'another-host' }, 60_000);
    const response = await fetch(`${serve!.url}/v1/runs/elsewhere/events`);
    const seen: number[] = [];
    const events = readEvents(response, (event) => {
      if (event.event === 'stored') {
        const head = (JSON.parse(event.data) as { head: number }).head;
        seen.push(head);
        // Each write is made only once the reader has the one before it: every step must come through the feed.
        if (head < 3) void worker.append(claim, [entry(head + 1)], { progress: { iterations: head + 1, tokens: 10 } });
        else void worker.finish(claim, outcome());
      }
      return event.event === 'end';
    });
    const all = await events;
    expect(seen.slice(0, 4)).toEqual([0, 1, 2, 3]);
    expect(JSON.parse(all.filter((event) => event.event === 'stored').at(-1)!.data)).toMatchObject({
      status: 'completed',
      live: true,
    });
    expect(all.at(-1)?.event).toBe('end');
    await worker.close();
  });
});
