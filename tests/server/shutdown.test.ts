// SIGTERM: the server stops taking runs, lets the running one reach a checkpoint (recorded cancelled, resumable), exits 0.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { cleanEnvironment } from '../support/run-cli.js';
import { jsonPost, loopbackModelEnv, waitFor } from './serve-support.js';

const loopback = useLoopbackServer();
const script = fileURLToPath(new URL('./serve-process.ts', import.meta.url));

describe('stageloop serve and SIGTERM', () => {
  it('drains the running run to a checkpoint and exits 0', async () => {
    loopback.server.hang();
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-serve-term-'));
    const storeFile = join(folder, 'runs.db');
    const env = cleanEnvironment(loopbackModelEnv(loopback.server.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, '--port', '0', '--store', storeFile], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await waitFor(
        async () => /listening on (http:\/\/\S+) /.exec(stdout)?.[1],
        'the server to listen',
        40_000,
      );
      const { runId } = (await (await fetch(`${url}/v1/runs`, jsonPost({ task: 'a long one' }))).json()) as {
        runId: string;
      };
      await waitFor(async () => (loopback.server.requests.length > 0 ? true : undefined), 'the model call');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('SIGTERM: taking no new runs');
      const store = sqliteStore(storeFile);
      try {
        const run = await store.get(runId);
        expect(run?.status).toBe('cancelled');
        expect((await store.checkpoints(runId)).length).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    } finally {
      child.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
