// executeAll: calls of one turn run in parallel, bounded by the concurrency limit, results in call order.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';

function sleeper() {
  let running = 0;
  let peak = 0;
  const tool = defineTool({
    name: 'sleep',
    description: 'Sleeps, then echoes.',
    parameters: z.object({ ms: z.number().int().min(0), label: z.string() }),
    async execute(args) {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      running -= 1;
      return args.label;
    },
  });
  return { tool, peak: () => peak };
}

const calls = (delays: number[]) =>
  delays.map((ms, index) => ({
    id: `c${index}`,
    name: 'sleep',
    arguments: JSON.stringify({ ms, label: `call ${index}` }),
  }));

describe('executeAll', () => {
  it('returns results in call order even when later calls finish first', async () => {
    const { tool } = sleeper();
    const results = await new ToolRegistry([tool]).executeAll(calls([60, 10, 30, 0]));
    expect(results.map((result) => (result.ok ? result.content : result.error.kind))).toEqual([
      'call 0',
      'call 1',
      'call 2',
      'call 3',
    ]);
  });

  it('never runs more calls at once than the limit, and does run them in parallel', async () => {
    const { tool, peak } = sleeper();
    await new ToolRegistry([tool], { concurrency: 3 }).executeAll(calls(Array.from({ length: 9 }, () => 40)));
    // A peak of 3 is the proof both ways: never more than the limit, and 3 running side by side (one at a time peaks at 1).
    expect(peak()).toBe(3);
  });

  it('defaults to 4 at once', async () => {
    const { tool, peak } = sleeper();
    await new ToolRegistry([tool]).executeAll(calls(Array.from({ length: 10 }, () => 20)));
    expect(peak()).toBe(4);
  });

  it('mixes failures and successes, one result per call', async () => {
    const { tool } = sleeper();
    const results = await new ToolRegistry([tool]).executeAll([
      ...calls([5]),
      { id: 'x', name: 'missing', arguments: '{}' },
      { id: 'y', name: 'sleep', arguments: 'not json' },
    ]);
    expect(results.map((result) => (result.ok ? 'ok' : result.error.kind))).toEqual([
      'ok',
      'unknown_tool',
      'invalid_arguments',
    ]);
  });

  it('resolves an empty list', async () => {
    expect(await new ToolRegistry([]).executeAll([])).toEqual([]);
  });
});
