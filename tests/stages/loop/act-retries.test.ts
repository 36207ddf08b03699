// act's tool_retry events: one per failed attempt a call's retry policy made, read from the call's result (so a
// replay, served the recorded result, reports them again without running anything).
import { describe, expect, it } from 'vitest';
import { emitRetries } from '../../../stages/loop/act-retries.js';
import { makeCtx } from '../../support/helpers.js';

describe('emitRetries', () => {
  it('emits tool_retry for each failed attempt on the result, its message shortened, and nothing without retries', () => {
    const ctx = makeCtx();
    const call = { id: 'c1', name: 'send_invoice', arguments: '{}' };
    emitRetries(ctx, call, { ok: true, content: 'sent', durationMs: 3 }, 200);
    expect(ctx.events).toEqual([]);
    const long = 'x'.repeat(300);
    emitRetries(
      ctx,
      call,
      {
        ok: true,
        content: 'sent',
        durationMs: 3,
        retries: [{ attempt: 1, error: { kind: 'timeout', message: long }, waitMs: 100.4 }],
      },
      20,
    );
    expect(ctx.events).toHaveLength(1);
    expect(ctx.events[0]).toMatchObject({
      type: 'tool_retry',
      data: { id: 'c1', name: 'send_invoice', attempt: 1, error: { kind: 'timeout' }, waitMs: 100 },
    });
    expect((ctx.events[0]!.data as { error: { message: string } }).error.message.length).toBeLessThanOrEqual(23);
  });
});
