// Tool execution policy (the six-components document: "Execution ... owns timeouts, retries, rate limits"): a call
// failing with an error its tool marks retryable is run again after a backoff, with the same idempotency key; a rate
// limit spaces the starts of a tool's calls across every registry holding it. Time is a timer the test moves: no
// test here sleeps.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolRateLimit, type ToolRetry } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolFailure } from '../../src/tools/tool-failure.js';
import type { ToolTimer } from '../../src/tools/call-policy.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

/** A timer whose sleeps return at once and are written down: `slept` is the wait each one asked for. */
function virtualTimer(): ToolTimer & { slept: number[] } {
  const slept: number[] = [];
  return { slept, now: () => 0, sleep: (ms) => (slept.push(ms), Promise.resolve()) };
}

/** Fails with `errors` in turn, then answers; notes each attempt's idempotency key. */
function failingTool(errors: Error[], policy: { retry?: ToolRetry; rateLimit?: ToolRateLimit }) {
  const keys: string[] = [];
  const tool = defineTool({
    name: 'send_invoice',
    description: 'Sends an invoice.',
    parameters: z.object({ to: z.string() }),
    ...policy,
    execute: (_args, ctx) => {
      keys.push(ctx.idempotencyKey);
      const error = errors[keys.length - 1];
      if (error !== undefined) throw error;
      return 'sent';
    },
  });
  return { tool, keys };
}

const call = { id: 'c1', name: 'send_invoice', arguments: '{"to":"ada"}' };
const transient = () => new ToolFailure('the mail server answered 503', { retryable: true });
const run = { runId: 'run-1', iteration: 1 };

describe('retry', () => {
  it('six-components "Execution owns retries": a retryable failure runs again after the backoff, with one idempotency key, and the result lists the failed attempts', async () => {
    const { tool, keys } = failingTool([transient(), transient()], {
      retry: { attempts: 3, backoff: { initialMs: 100 } },
    });
    const timer = virtualTimer();
    const result = await new ToolRegistry([tool], { timer }).execute(call, undefined, run);
    expect(result).toMatchObject({ ok: true, content: 'sent' });
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(timer.slept).toEqual([100, 200]);
    expect(result.retries).toEqual([
      {
        attempt: 1,
        error: { kind: 'failed', message: 'Tool "send_invoice" failed: the mail server answered 503' },
        waitMs: 100,
      },
      {
        attempt: 2,
        error: { kind: 'failed', message: 'Tool "send_invoice" failed: the mail server answered 503' },
        waitMs: 200,
      },
    ]);
  });

  it('an error the tool does not mark retryable is not tried again; spent attempts say how many there were', async () => {
    const plain = failingTool([new Error('bad address')], { retry: { attempts: 3, backoff: 10 } });
    const once = await new ToolRegistry([plain.tool], { timer: virtualTimer() }).execute(call);
    expect(plain.keys).toHaveLength(1);
    expect(once).toMatchObject({ ok: false, error: { kind: 'failed', retryable: false } });
    expect(once.retries).toBeUndefined();

    const always = failingTool([transient(), transient(), transient()], { retry: { attempts: 3, backoff: 10 } });
    const timer = virtualTimer();
    const spent = await new ToolRegistry([always.tool], { timer }).execute(call);
    expect(always.keys).toHaveLength(3);
    expect(timer.slept).toEqual([10, 10]);
    expect(spent).toMatchObject({
      ok: false,
      error: { message: 'Tool "send_invoice" failed: the mail server answered 503 (tried 3 times)', retryable: true },
    });
  });

  it("the registry's per-tool setting wins over the tool's own, as timeouts do; without one nothing is retried", async () => {
    const { tool, keys } = failingTool([transient(), transient()], {});
    const timer = virtualTimer();
    const bare = await new ToolRegistry([tool], { timer }).execute(call);
    expect(bare.ok).toBe(false);
    const result = await new ToolRegistry([tool], {
      timer,
      retries: { send_invoice: { attempts: 2, backoff: 5 } },
    }).execute(call);
    expect(result).toMatchObject({ ok: true });
    expect(keys).toHaveLength(3);
  });

  it('bad settings fail where they are made, naming the tool and the field', () => {
    expect(() => failingTool([], { retry: { attempts: 1 } })).toThrow(
      'Tool "send_invoice": retry.attempts must be a whole number of at least 2 (the first attempt included), got 1',
    );
    expect(() => failingTool([], { rateLimit: { perMinute: 0 } })).toThrow(StageloopError);
    const { tool } = failingTool([], {});
    expect(() => new ToolRegistry([tool], { rateLimits: { send_invoice: { perMinute: 1.5 } } })).toThrow(
      'rateLimit.perMinute must be a whole number of at least 1, got 1.5',
    );
  });
});

describe('rate limit', () => {
  function countedTool(perMinute: number) {
    const started: string[] = [];
    const tool = defineTool({
      name: 'geocode',
      description: 'Finds a place.',
      parameters: z.object({ place: z.string() }),
      effects: 'read',
      rateLimit: { perMinute },
      execute: ({ place }) => (started.push(place), place),
    });
    return { tool, started };
  }
  const geocode = (place: string) => ({ id: place, name: 'geocode', arguments: JSON.stringify({ place }) });

  it('six-components "Execution owns rate limits": calls over the limit wait their turn, a minute per window, in order', async () => {
    const { tool, started } = countedTool(2);
    const timer = virtualTimer();
    const registry = new ToolRegistry([tool], { timer, concurrency: 5 });
    const results = await registry.executeAll(['a', 'b', 'c', 'd', 'e'].map(geocode));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(timer.slept).toEqual([60_000, 60_000, 120_000]);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('is shared by every registry holding the tool (a child agent made with the same tools counts with its caller)', async () => {
    const { tool } = countedTool(2);
    const timer = virtualTimer();
    const parent = new ToolRegistry([tool], { timer });
    const child = new ToolRegistry([tool], { timer }).only(['geocode']);
    await parent.executeAll([geocode('a'), geocode('b')]);
    expect(timer.slept).toEqual([]);
    await child.executeAll([geocode('c')]);
    expect(timer.slept).toEqual([60_000]);
  });

  it('a call waiting its turn when the run is cancelled is not started', async () => {
    const { tool, started } = countedTool(1);
    const controller = new AbortController();
    const timer: ToolTimer = { now: () => 0, sleep: () => (controller.abort(), Promise.resolve()) };
    const registry = new ToolRegistry([tool], { timer });
    const [first, second] = await registry.executeAll([geocode('a'), geocode('b')], controller.signal);
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(started).toEqual(['a']);
  });
});
