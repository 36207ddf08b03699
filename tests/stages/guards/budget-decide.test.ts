import { describe, expect, it } from 'vitest';
import { decide, farFromLimits, type BudgetHistory } from '../../../stages/guards/budget-decide.js';

const used = (values: Partial<Record<'iterations' | 'tokens' | 'cost' | 'time', number>>) => ({
  iterations: 0,
  tokens: 0,
  cost: 0,
  time: 0,
  ...values,
});
const fresh: BudgetHistory = { iteration: 3, warnAt: 0.8, warned: [], finalTurn: null, canAsk: false };

describe('budget decide(used, limits, mode)', () => {
  it('far from every limit: nothing to decide', () => {
    expect(farFromLimits(used({ tokens: 100 }), { tokens: 1_000 }, 'soft', fresh)).toBe(true);
    expect(decide(used({ tokens: 100 }), { tokens: 1_000 }, 'soft', fresh)).toEqual({ action: 'continue' });
    // Hard mode always decides: it estimates the next call.
    expect(farFromLimits(used({ tokens: 100 }), { tokens: 1_000 }, 'hard', fresh)).toBe(false);
    expect(decide(used({ tokens: 100 }), { tokens: 1_000 }, 'hard', fresh)).toEqual({
      action: 'estimate',
      then: { action: 'continue' },
    });
  });

  it('at the warning share a warning, once per kind', () => {
    expect(decide(used({ tokens: 850, iterations: 9 }), { tokens: 1_000, iterations: 10 }, 'soft', fresh)).toEqual({
      action: 'warn',
      kinds: ['iterations', 'tokens'],
    });
    expect(decide(used({ tokens: 850 }), { tokens: 1_000 }, 'soft', { ...fresh, warned: ['tokens'] })).toEqual({
      action: 'continue',
    });
  });

  it('spent (soft): one tools-less final turn, then a stop if that turn did not end the run', () => {
    expect(decide(used({ tokens: 1_000 }), { tokens: 1_000 }, 'soft', fresh)).toEqual({
      action: 'final_turn',
      kind: 'tokens',
    });
    expect(
      decide(used({ tokens: 1_200 }), { tokens: 1_000 }, 'soft', {
        ...fresh,
        finalTurn: { kind: 'tokens', iteration: 3 },
      }),
    ).toEqual({ action: 'continue' });
    expect(
      decide(used({ tokens: 1_200 }), { tokens: 1_000 }, 'soft', {
        ...fresh,
        finalTurn: { kind: 'tokens', iteration: 2 },
      }),
    ).toMatchObject({ action: 'stop', kind: 'tokens' });
  });

  it('time has no final turn; hard mode stops a spent token budget at once; a person is asked first when one can be', () => {
    expect(decide(used({ time: 5_000, tokens: 2_000 }), { time: 5_000, tokens: 1_000 }, 'soft', fresh)).toEqual({
      action: 'stop',
      kind: 'time',
      reason: 'the time budget is spent',
    });
    expect(decide(used({ tokens: 1_000 }), { tokens: 1_000 }, 'hard', fresh)).toMatchObject({
      action: 'stop',
      kind: 'tokens',
      reason: expect.stringContaining('hard mode'),
    });
    expect(
      decide(used({ tokens: 2_000, time: 5_000 }), { time: 5_000, tokens: 1_000 }, 'soft', { ...fresh, canAsk: true }),
    ).toEqual({ action: 'ask', kind: 'time' });
    expect(decide(used({ tokens: 2_000 }), { tokens: 1_000 }, 'hard', { ...fresh, canAsk: true })).toMatchObject({
      action: 'stop',
    });
  });
});
