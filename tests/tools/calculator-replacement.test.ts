// A calculator process killed by a limit is replaced at once, in the background: the next call finds it started.
import { afterEach, describe, expect, it } from 'vitest';
import { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { until } from '../support/helpers.js';

const hosts: CalculatorWorkerHost[] = [];
const newHost = (memoryLimitMb = 64) => {
  const host = new CalculatorWorkerHost({
    evaluationTimeoutMs: 1_000,
    memoryLimitMb,
    maxNodes: 300,
    maxResultChars: 4_000,
  });
  hosts.push(host);
  return host;
};
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});
const signal = new AbortController().signal;

/** Kills the worker through `kill`, then checks a new process exists at once and serves the next call. */
async function expectStartedReplacement(host: CalculatorWorkerHost, kill: () => Promise<void>): Promise<void> {
  await host.warm();
  const killed = host.workerProcessId;
  await kill();
  // Read right after the failure: the replacement exists before anyone asked for another calculation.
  const replacement = host.workerProcessId;
  expect(replacement).toBeDefined();
  expect(replacement).not.toBe(killed);
  expect(await host.evaluate('17 * 23 + 4', signal)).toBe('395');
  expect(host.workerProcessId).toBe(replacement);
}

// Kills by a time limit race the suite's other processes for 2 cores: a case that lost the race is tried again.
describe('calculator process replacement', { retry: 2 }, () => {
  it.each([
    // Five 9-million-element maps: ~6 s here, so past the 1 s limit on any machine (one alone is ~1 s, a coin toss).
    ['the time limit', Array(5).fill('sum(map(ones(3000, 3000), f(x) = x + 1))').join(' + '), 1_024, /longer than 1 s/],
    ['the memory limit', 'zeros(100000, 100000)', 64, /more than 64 MB of memory/],
  ])(
    'after a kill by %s, the next call is served by a process started at the kill',
    async (_limit, expression, memoryLimitMb, message) => {
      const host = newHost(memoryLimitMb);
      await expectStartedReplacement(host, () => expect(host.evaluate(expression, signal)).rejects.toThrow(message));
    },
    20_000,
  );

  it('a calculation aborted while running also leaves a started replacement behind', async () => {
    const host = newHost(1_024);
    await expectStartedReplacement(host, async () => {
      const controller = new AbortController();
      const running = host.evaluate('sum(map(ones(3000, 3000), f(x) = x + 1))', controller.signal);
      await until(() => host.evaluating, 'the worker is calculating');
      controller.abort(new Error('stop'));
      await expect(running).rejects.toThrow('stop');
    });
  }, 20_000);

  it('close() resolves once the worker process is gone', async () => {
    const host = newHost();
    await host.warm();
    const pid = host.workerProcessId!;
    await host.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(host.workerProcessId).toBeUndefined();
  });
});
