// RunHost: a run that reports its first event synchronously, and one whose start throws, with real starters.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/engine/runner.js';
import { RunHost } from '../../src/server/run-host.js';

const input = { task: 'x' };

describe('RunHost', () => {
  it('takes a run whose first event comes synchronously, before the starter returns', async () => {
    const host = new RunHost(async (_assembly, _input, options) => {
      options.deps.onEvent?.({
        runId: 'sync-run',
        seq: 1,
        type: 'run_started',
        zone: null,
        stage: null,
        iteration: 0,
        at: 1,
        data: { pipeline: 'react', task: 'x' },
      });
      return { runId: 'sync-run' } as RunResult;
    });
    await expect(host.start({ pipeline: {} as never, deps: {} }, input)).resolves.toBe('sync-run');
    expect(host.log('sync-run')!.events.map((event) => event.seq)).toEqual([1]);
  });

  it('a starter that throws rejects the start (the server answers 503: the store could not record the run) and leaves no run behind', async () => {
    const host = new RunHost(() => Promise.reject(new Error('the store is read-only')));
    await expect(host.start({ pipeline: {} as never, deps: {} }, input)).rejects.toThrow('the store is read-only');
    await host.drain('stop');
  });

  it('continues a run with a new log at once, and starts it only after the run before it settled here', async () => {
    let finishFirst: () => void = () => undefined;
    const host = new RunHost((_assembly, _input, options) => {
      options.deps.onEvent?.({
        runId: 'paused-run',
        seq: 1,
        type: 'run_started',
        zone: null,
        stage: null,
        iteration: 0,
        at: 1,
        data: { pipeline: 'react', task: 'x' },
      });
      return new Promise<RunResult>((resolve) => (finishFirst = () => resolve({ runId: 'paused-run' } as RunResult)));
    });
    await host.start({ pipeline: {} as never, deps: {} }, input);
    const firstLog = host.log('paused-run');
    let resumed = false;
    const continued = host.continue('paused-run', {
      deps: {},
      resume: async (options) => {
        resumed = true;
        options.deps.onEvent?.({
          runId: 'paused-run',
          seq: 1,
          type: 'run_started',
          zone: null,
          stage: null,
          iteration: 0,
          at: 2,
          data: { pipeline: 'react', task: 'x' },
        });
        return { runId: 'paused-run' } as RunResult;
      },
    });
    await expect(continued).resolves.toBe('paused-run');
    expect(host.log('paused-run')).not.toBe(firstLog);
    expect(host.isActive('paused-run')).toBe(true);
    await Promise.resolve();
    expect(resumed).toBe(false);
    finishFirst();
    await host.result('paused-run');
    expect(resumed).toBe(true);
    expect(host.log('paused-run')!.events.map((event) => event.at)).toEqual([2]);
    await host.drain('stop');
    expect(host.isActive('paused-run')).toBe(false);
  });

  it('keeps a continued run while 500 others finish after it, and a drain waits for it', async () => {
    let id = 0;
    const host = new RunHost(async () => ({ runId: `run-${++id}` }) as RunResult);
    await host.start({ pipeline: {} as never, deps: {} }, input);
    await host.result('run-1');
    let release: () => void = () => undefined;
    await host.continue('run-1', {
      deps: {},
      resume: () => new Promise<RunResult>((resolve) => (release = () => resolve({ runId: 'run-1' } as RunResult))),
    });
    for (let index = 0; index < 501; index += 1)
      await host.result(await host.start({ pipeline: {} as never, deps: {} }, input));
    expect(host.isActive('run-1')).toBe(true);
    let drained = false;
    const draining = host.drain('stop').then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    release();
    await draining;
    expect(host.isActive('run-1')).toBe(false);
  });
});
