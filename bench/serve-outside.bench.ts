// The server from outside: `stageloop serve` in its own process (the built CLI, as a user starts it) against a bare
// node:http server in its own process sending the same bytes and headers; 10 keep-alive clients in this process GET a
// finished run's view, rounds interleaved. server.bench.ts measures the same with client and server in one process.
// Needs `npm run build` first (the bin runs dist/).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getRate } from './server.bench.js';
import { format, median } from './measure.js';

/** CPU ms a process has used (Linux: /proc/PID/stat, user + system, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const bin = fileURLToPath(new URL('../bin/stageloop.js', import.meta.url));

/** Starts a process and waits for the first line on stdout naming its URL. */
function started(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(seen)?.[0];
      if (url !== undefined) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code} before listening: ${seen}`)));
  });
}

/** The floor: node:http answering every request with the given bytes and headers, in its own process. */
const bareSource = `
const { createServer } = require('node:http');
const body = Buffer.from(process.env.BARE_BODY, 'base64');
const headers = { ...JSON.parse(process.env.BARE_HEADERS), 'content-length': String(body.length) };
const server = createServer((request, response) => response.writeHead(200, headers).end(body));
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));
`;

export async function run(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-serve-outside-'));
  const serve = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--host', '127.0.0.1', '--store', join(folder, 'runs.db')],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, STAGELOOP_HOME: folder } },
  );
  let bare: ChildProcess | undefined;
  try {
    const url = await started(serve);
    const created = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'what is 17 * 23 + 4?' }),
    });
    const { runId } = (await created.json()) as { runId: string };
    const path = `/v1/runs/${runId}`;
    for (let live = true; live; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const view = (await (await fetch(`${url}${path}`)).json()) as { run: { status: string }; live: boolean };
      live = view.live || view.run.status === 'running';
    }
    const answer = await fetch(`${url}${path}`);
    const body = Buffer.from(await answer.arrayBuffer());
    const headers = Object.fromEntries(
      [...answer.headers].filter(([name]) => ['content-type', 'etag', 'cache-control'].includes(name)),
    );
    bare = spawn(process.execPath, ['-e', bareSource], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, BARE_BODY: body.toString('base64'), BARE_HEADERS: JSON.stringify(headers) },
    });
    const bareUrl = await started(bare);
    // Interleaved, so both meet the same load; the ratio of each pair is the figure.
    // The servers' own CPU per request is the figure a loaded machine leaves comparable (requests/s follow the load).
    const ours: number[] = [];
    const floor: number[] = [];
    const cpuRatios: number[] = [];
    const requests = 5 * 10 * 300 + 50;
    for (let pair = 0; pair < 5; pair++) {
      const bareBefore = cpuMs(bare.pid!);
      floor.push((await getRate(bareUrl, '/')).median);
      const bareCpu = cpuMs(bare.pid!) - bareBefore;
      const oursBefore = cpuMs(serve.pid!);
      ours.push((await getRate(url, path)).median);
      cpuRatios.push((cpuMs(serve.pid!) - oursBefore) / bareCpu);
      if (pair === 0) console.log(`  server CPU per request: bare ${format((1000 * bareCpu) / requests, 1)} µs`);
    }
    const ratios = floor.map((rate, index) => rate / ours[index]!);
    console.log(
      `GET /v1/runs/:id outside in (finished run, ${body.length} B, 10 keep-alive clients, each server its own process): stageloop serve ${format(median(ours), 0)} requests/s, bare node:http ${format(median(floor), 0)} requests/s: ${format(median(ratios), 2)}x (pairs ${ratios.map((ratio) => format(ratio, 2)).join(', ')}; goal <= 1.5x); server CPU per request ${format(median(cpuRatios), 2)}x the bare server's (pairs ${cpuRatios.map((ratio) => format(ratio, 2)).join(', ')})`,
    );
  } finally {
    bare?.kill();
    serve.kill();
    await new Promise((resolve) => serve.once('exit', resolve));
    rmSync(folder, { recursive: true, force: true });
  }
}
