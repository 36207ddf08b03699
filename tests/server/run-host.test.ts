// RunHost: a run that reports its first event synchronously, and one whose start throws, with real starters.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/engine/runner.js';
import { RunHost } from '../../src/server/run-host.js';

const input = { task: 'x' };

describe('RunHost', () => {
  it('takes a run whose first event comes synchronously, before the starter returns', async () => {
    const host = new RunHost(async (_assembly, _input, options) => {
      options.deps.onEvent?.({ runId: 'sync-run', seq: 1, type: 'run_started', zone: null, stage: null, iteration: 0, at: 1, data: { pipeline: 'react', task: 'x' } });
      return { runId: 'sync-run' } as RunResult;
    });
    await expect(host.start({ pipeline: {} as never, deps: {} }, input)).resolves.toBe('sync-run');
    expect(host.log('sync-run')!.events.map((event) => event.seq)).toEqual([1]);
  });

  it('a starter that throws rejects the start (the server answers 500) and leaves no run behind', async () => {
    const host = new RunHost(() => Promise.reject(new Error('the store is read-only')));
    await expect(host.start({ pipeline: {} as never, deps: {} }, input)).rejects.toThrow('the store is read-only');
    await host.drain('stop');
  });
});
