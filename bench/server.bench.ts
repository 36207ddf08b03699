// The server: GET /v1/runs/:id of a finished run against a bare node:http server sending the same bytes (10
// keep-alive clients, interleaved rounds), the run list at 100 and 100,000 runs, and events per second over SSE to
// 100 concurrent streams of one live run. Client and server share this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServe } from '../app/serve.js';
import { shownSlots } from '../app/shown-slots.js';
import type { RunResult } from '../src/engine/runner.js';
import { serverApp } from '../src/server/app.js';
import { listen } from '../src/server/listen.js';
import { RunHost } from '../src/server/run-host.js';
import { memoryStore } from '../src/store/memory-store.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import { median } from './measure.js';

/** Requests/s of `rounds` x (10 keep-alive clients x `perClient` GETs of `path`), median and each round. */
export async function getRate(
  base: string,
  path: string,
  perClient = 300,
  rounds = 5,
): Promise<{ median: number; rounds: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 10 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      get(`${base}${path}`, { agent }, (response) => {
        response.on('data', () => undefined);
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`${path}: ${response.statusCode}`)),
        );
      }).on('error', reject);
    });
  for (let index = 0; index < 50; index++) await once();
  const rates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let index = 0; index < perClient; index++) await once();
      }),
    );
    rates.push((10 * perClient) / ((performance.now() - started) / 1000));
  }
  agent.destroy();
  return { median: median(rates), rounds: rates.map(Math.round) };
}

/** The floor: a bare node:http server answering every request with the same bytes and headers. */
function bareServer(body: Buffer, headers: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) =>
    response.writeHead(200, { ...headers, 'content-length': String(body.length) }).end(body),
  );
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => (server.close(() => done()), server.closeAllConnections())),
      }),
    ),
  );
}

export async function getRunRate(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-server-bench-'));
  const serve = await startServe({ port: 0, host: '127.0.0.1', store: join(folder, 'runs.db') }, {});
  try {
    const { runId } = (await (
      await fetch(`${serve.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ task: 'what is 17 * 23 + 4?' }),
      })
    ).json()) as { runId: string };
    for (let live = true; live; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const view = (await (await fetch(`${serve.url}/v1/runs/${runId}`)).json()) as {
        run: { status: string };
        live: boolean;
      };
      live = view.live || view.run.status === 'running';
    }
    const answer = await fetch(`${serve.url}/v1/runs/${runId}`);
    const body = Buffer.from(await answer.arrayBuffer());
    const headers = Object.fromEntries(
      [...answer.headers].filter(([name]) => ['content-type', 'etag', 'cache-control'].includes(name)),
    );
    const bare = await bareServer(body, headers);
    // Interleaved, so both meet the same machine load.
    const ours: number[] = [];
    const floor: number[] = [];
    for (let pair = 0; pair < 3; pair++) {
      floor.push((await getRate(bare.url, '/')).median);
      ours.push((await getRate(serve.url, `/v1/runs/${runId}`)).median);
    }
    await bare.close();
    console.log(
      `GET /v1/runs/:id (finished run, ${body.length} B, 10 keep-alive clients): stageloop ${Math.round(median(ours))} requests/s (${ours.map(Math.round).join(', ')}), bare node:http with the same bytes ${Math.round(median(floor))} requests/s (${floor.map(Math.round).join(', ')}): ${(median(floor) / median(ours)).toFixed(2)}x`,
    );
  } finally {
    await serve.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** GET /v1/runs (a page of 50) over a SQLite store of `count` recorded runs: the first page and one deep in the middle. */
async function listRate(count: number): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-list-bench-'));
  const store = sqliteStore(join(folder, 'runs.db'));
  const owner = { id: 'bench', pid: process.pid, host: 'bench' };
  const started = Date.now() - count;
  for (let index = 0; index < count; index++) {
    await store.create(
      {
        runId: `run-${String(index).padStart(6, '0')}`,
        pipeline: 'react',
        fingerprint: 'f',
        version: '0',
        input: { task: `task number ${index}` },
        options: {},
        createdAt: started + index,
      },
      owner,
      60_000,
    );
  }
  const host = new RunHost(() => Promise.reject(new Error('not used')));
  const app = serverApp({
    store,
    host,
    pipelines: [],
    shownSlots,
    defaultPipeline: 'none',
    assemble: () => Promise.reject(new Error('not used')),
  });
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  try {
    const first = await getRate(server.url, '/v1/runs?limit=50', 100, 3);
    const middle = `run-${String(Math.floor(count / 2)).padStart(6, '0')}`;
    const deep = await getRate(server.url, `/v1/runs?limit=50&before=${middle}`, 100, 3);
    console.log(
      `GET /v1/runs?limit=50 over ${count} runs (SQLite): first page ${Math.round(first.median)} requests/s (${first.rounds.join(', ')}), a page from the middle ${Math.round(deep.median)} requests/s (${deep.rounds.join(', ')})`,
    );
  } finally {
    await server.close();
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** One live run that emits `count` events as fast as the readers take them (a run whose stages only report). */
async function sseRate(streams: number, count: number): Promise<void> {
  let emit: (index: number) => void = () => {};
  let finish: () => void = () => {};
  const host = new RunHost(async (_assembly, _input, options) => {
    emit = (index) =>
      options.deps.onEvent?.({
        runId: 'bench-run',
        seq: index + 1,
        type: 'text_delta',
        zone: 'iteration',
        stage: 'think',
        iteration: 1,
        at: Date.now(),
        data: { purpose: 'think', text: 'x'.repeat(100), mayAnswer: true },
      });
    emit(0);
    await new Promise<void>((resolve) => (finish = resolve));
    return { runId: 'bench-run' } as RunResult;
  });
  const app = serverApp({
    store: memoryStore(),
    host,
    pipelines: [],
    shownSlots,
    defaultPipeline: 'none',
    assemble: () => Promise.reject(new Error('not used')),
  });
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  await host.start({ pipeline: {} as never, deps: {} }, { task: 'bench' });
  const readers = Array.from({ length: streams }, async () => {
    const response = await fetch(`${server.url}/v1/runs/bench-run/events`);
    const reader = response.body!.getReader();
    let received = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      received += new TextDecoder().decode(chunk.value).split('\nid: ').length - 1;
    return received;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  for (let index = 1; index < count; index++) {
    emit(index);
    if (index % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  finish();
  const received = await Promise.all(readers);
  const seconds = (performance.now() - started) / 1000;
  const total = received.reduce((sum, value) => sum + value, 0);
  console.log(
    `SSE, ${streams} concurrent streams × ${count} events: ${Math.round(total / seconds)} events/s delivered (${total} of ${streams * count} in ${seconds.toFixed(2)} s)`,
  );
  await server.close();
}

export async function run(): Promise<void> {
  await getRunRate();
  await listRate(100);
  await listRate(100_000);
  await sseRate(100, 2_000);
}
