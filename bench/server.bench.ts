// The server: requests per second for GET /v1/runs/:id (a recorded run in SQLite, timeline built per request), and
// events per second over SSE to 100 concurrent streams of one live run. Client and server share this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServe } from '../app/cli/serve-command.js';
import type { RunResult } from '../src/engine/runner.js';
import { serverApp } from '../src/server/app.js';
import { listen } from '../src/server/listen.js';
import { RunHost } from '../src/server/run-host.js';
import { memoryStore } from '../src/store/memory-store.js';
import { median } from './measure.js';

async function getRunRate(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-server-bench-'));
  const serve = await startServe({ port: 0, host: '127.0.0.1', store: join(folder, 'runs.db') }, {});
  try {
    const { runId } = (await (await fetch(`${serve.url}/v1/runs`, { method: 'POST', body: JSON.stringify({ task: 'what is 17 * 23 + 4?' }) })).json()) as { runId: string };
    for (let status = ''; status !== 'completed'; await new Promise((resolve) => setTimeout(resolve, 20))) {
      status = ((await (await fetch(`${serve.url}/v1/runs/${runId}`)).json()) as { run: { status: string } }).run.status;
    }
    const concurrency = 10;
    const perWorker = 200;
    const rates: number[] = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let index = 0; index < perWorker; index++) await (await fetch(`${serve.url}/v1/runs/${runId}`)).arrayBuffer();
      }));
      rates.push((concurrency * perWorker) / ((performance.now() - started) / 1000));
    }
    const size = (await (await fetch(`${serve.url}/v1/runs/${runId}`)).arrayBuffer()).byteLength;
    console.log(`GET /v1/runs/:id (SQLite, ${size} B answer, ${concurrency} clients): median ${Math.round(median(rates))} requests/s (rounds: ${rates.map(Math.round).join(', ')})`);
  } finally {
    await serve.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** One live run that emits `count` events as fast as the readers take them (a run whose stages only report). */
async function sseRate(streams: number, count: number): Promise<void> {
  let emit: (index: number) => void = () => {};
  let finish: () => void = () => {};
  const host = new RunHost(async (_assembly, _input, options) => {
    emit = (index) => options.deps.onEvent?.({ runId: 'bench-run', seq: index + 1, type: 'text_delta', zone: 'iteration', stage: 'think', iteration: 1, at: Date.now(), data: { purpose: 'think', text: 'x'.repeat(100), mayAnswer: true } });
    emit(0);
    await new Promise<void>((resolve) => (finish = resolve));
    return { runId: 'bench-run' } as RunResult;
  });
  const app = serverApp({ store: memoryStore(), host, pipelines: [], defaultPipeline: 'none', assemble: () => Promise.reject(new Error('not used')) });
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  await host.start({ pipeline: {} as never, deps: {} }, { task: 'bench' });
  const readers = Array.from({ length: streams }, async () => {
    const response = await fetch(`${server.url}/v1/runs/bench-run/events`);
    const reader = response.body!.getReader();
    let received = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += new TextDecoder().decode(chunk.value).split('\nid: ').length - 1;
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
  console.log(`SSE, ${streams} concurrent streams × ${count} events: ${Math.round(total / seconds)} events/s delivered (${total} of ${streams * count} in ${seconds.toFixed(2)} s)`);
  await server.close();
}

export async function run(): Promise<void> {
  await getRunRate();
  await sseRate(100, 2_000);
}
