// Runs that restart themselves: a `stageloop serve` killed with SIGKILL mid-run leaves its run "running (owner
// gone)"; the next serve on the same store continues it without anyone typing resume, two started at once take it
// once between them, and `--no-recover` leaves it alone. Timed by events (the model call arriving, stderr lines).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { RunSummary } from '../../src/store/types.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { cleanEnvironment, runCli } from '../support/run-cli.js';
import { jsonPost, loopbackModelEnv, waitFor } from './serve-support.js';

const loopback = useLoopbackServer();
const script = fileURLToPath(new URL('./serve-process.ts', import.meta.url));
let folder = '';
let storeFile = '';
const children: ChildProcess[] = [];
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-recover-'));
  storeFile = join(folder, 'runs.db');
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

interface Served {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  url: Promise<string>;
  exited: Promise<number | null>;
}

function serve(...flags: string[]): Served {
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--port', '0', '--store', storeFile, ...flags], {
    env: cleanEnvironment(loopbackModelEnv(loopback.server.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = waitFor(
    async () => /listening on (http:\/\/\S+) /.exec(output.stdout)?.[1],
    'the server to listen',
    60_000,
  );
  return { child, output, url, exited };
}

/** A run started on a serve that is killed (SIGKILL) while the run's model call is open. */
async function orphanedRun(): Promise<string> {
  loopback.server.hang();
  const first = serve();
  const response = await fetch(`${await first.url}/v1/runs`, jsonPost({ task: 'What is 6 * 7?' }));
  const { runId } = (await response.json()) as { runId: string };
  await loopback.server.received(1);
  first.child.kill('SIGKILL');
  await first.exited;
  loopback.server.replyWith({ content: 'The answer is 42.', times: 4 });
  return runId;
}

async function statusOf(runId: string): Promise<RunSummary | undefined> {
  const store = sqliteStore(storeFile);
  try {
    return await store.get(runId);
  } finally {
    await store.close();
  }
}

const completed = (runId: string) =>
  waitFor(
    async () => ((await statusOf(runId))?.status === 'completed' ? true : undefined),
    'the run to complete',
    60_000,
  );

describe('stageloop serve recovers the runs of its store whose owner is gone', () => {
  it('a new serve continues a run whose serve was killed; runs shows who recovered it', async () => {
    const runId = await orphanedRun();
    const second = serve();
    await second.url;
    // Claimed at start, before the server said it listens.
    expect((await statusOf(runId))?.epoch).toBe(2);
    await completed(runId);
    expect((await statusOf(runId))?.answer).toBe('The answer is 42.');
    await waitFor(async () => (second.output.stderr.includes(`recovered run ${runId}`) ? true : undefined), 'the line');
    const listed = await runCli(['runs', '--store', storeFile], {});
    expect(listed.stdout).toMatch(new RegExp(`${runId}.*completed \\(recovered by serve pid ${second.child.pid} on `));
    const json = JSON.parse((await runCli(['runs', '--store', storeFile, '--json'], {})).stdout) as Array<{
      recoveredBy: string | null;
    }>;
    expect(json[0]?.recoveredBy).toMatch(new RegExp(`^serve pid ${second.child.pid} on `));
  }, 180_000);

  it('two servers started at once on one store: exactly one takes the run', async () => {
    const runId = await orphanedRun();
    const both = [serve(), serve()];
    await Promise.all(both.map((one) => one.url));
    await completed(runId);
    const recovered = both.filter((one) => one.output.stderr.includes(`recovered run ${runId}`));
    expect(recovered).toHaveLength(1);
    // The model answered the recovered run once: no second server ran it too.
    expect(loopback.server.requests).toHaveLength(2);
  }, 180_000);

  it('--no-recover leaves the run to "stageloop resume"', async () => {
    const runId = await orphanedRun();
    const second = serve('--no-recover');
    const url = await second.url;
    // A server says it listens once its start's look for dead runs is done: this one did not claim the run.
    expect((await fetch(`${url}/v1/runs/${runId}`)).status).toBe(200);
    expect(await statusOf(runId)).toMatchObject({ status: 'running', epoch: 1 });
    expect(second.output.stderr).not.toContain('recovered run');
    expect(loopback.server.requests).toHaveLength(1);
  }, 180_000);
});
