// Calls in flight share one timer and one abort listener per run signal: each call still gets its own outcome.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolResult } from '../../src/engine/tool-port.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Called as each sleeper call starts: a test aborts on it, not after a pause. */
let onStart: () => void = () => undefined;
const sleeper = defineTool({
  name: 'sleep',
  description: 'Sleeps, then answers.',
  parameters: z.object({ ms: z.number() }),
  async execute({ ms }) {
    onStart();
    await sleep(ms);
    return `slept ${ms}`;
  },
});
const call = (id: string, ms: number, name = 'sleep') => ({ id, name, arguments: JSON.stringify({ ms }) });
const outcome = (result: ToolResult) => (result.ok ? result.content : result.error.kind);
const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

describe('calls in flight', () => {
  afterEach(() => {
    onStart = () => undefined;
  });

  it('gives each call of a batch its own timeout, whatever the order the timeouts fall in', async () => {
    const fast = defineTool({ ...sleeper, name: 'fast', timeoutMs: 20 });
    const slow = defineTool({ ...sleeper, name: 'slow', timeoutMs: 60 });
    const registry = new ToolRegistry([sleeper, fast, slow], { defaultTimeoutMs: 5_000 });
    const results = await registry.executeAll([
      call('a', 200, 'slow'),
      call('b', 200, 'fast'),
      call('c', 5),
      call('d', 30, 'slow'),
    ]);
    expect(results.map(outcome)).toEqual(['timeout', 'timeout', 'slept 5', 'slept 30']);
  });

  it('cancels only the calls of the run whose signal aborted', async () => {
    const registry = new ToolRegistry([sleeper]);
    const first = new AbortController();
    const second = new AbortController();
    let started = 0;
    // Once all three calls run, the first run is cancelled.
    onStart = () => void (++started === 3 && setImmediate(() => first.abort()));
    const running = [
      registry.executeAll([call('a', 40), call('b', 40)], first.signal),
      registry.executeAll([call('c', 40)], second.signal),
    ];
    const [cancelled, finished] = await Promise.all(running);
    expect(cancelled!.map(outcome)).toEqual(['aborted', 'aborted']);
    expect(finished!.map(outcome)).toEqual(['slept 40']);
  });

  it('a run signal keeps working for calls made after an earlier batch finished', async () => {
    const registry = new ToolRegistry([sleeper]);
    const controller = new AbortController();
    expect((await registry.executeAll([call('a', 1)], controller.signal)).map(outcome)).toEqual(['slept 1']);
    onStart = () => setImmediate(() => controller.abort());
    expect((await registry.executeAll([call('b', 100)], controller.signal)).map(outcome)).toEqual(['aborted']);
  });

  it('leaves no timer holding the process open once every call has finished', async () => {
    const before = timers();
    await new ToolRegistry([sleeper]).executeAll([call('a', 1), call('b', 2)]);
    expect(timers()).toBe(before);
  });
});
