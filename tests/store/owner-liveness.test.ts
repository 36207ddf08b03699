// Whether a run's owner still lives: a process killed with kill -9 whose parent has not reaped it yet (a zombie)
// still answers kill(pid, 0), but it will never renew its lease, so resume must not wait for it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/store/run-store.js';
import { until } from '../support/helpers.js';

const stateOf = (pid: number) =>
  readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .charAt(0);

describe.runIf(process.platform === 'linux')('pidAlive', () => {
  it('a killed process its parent has not reaped is not alive; its parent is', async () => {
    // perl forks a child that exits at once, prints its pid and sleeps without ever reaping it. (A shell's `true &`
    // before `exec sleep` was reaped by the shell itself when it exited first on a loaded machine.)
    const parent = spawn(
      'perl',
      ['-e', 'my $child = fork(); exit 0 if $child == 0; $| = 1; print "$child\n"; sleep 30'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
      );
      await until(() => stateOf(zombie) === 'Z', 'the background process has exited unreaped');
      expect(pidAlive(zombie)).toBe(false);
      expect(pidAlive(parent.pid!)).toBe(true);
      expect(pidAlive(process.pid)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
