import { describe, expect, it } from 'vitest';
import { costUsd, priceFor, requirePrice, validate } from '../../../stages/guards/budget-options.js';

describe('budget options', () => {
  it("prices a model from the table, the caller's prices first", () => {
    expect(priceFor('gpt-4o-2024-08-06')).toEqual({ input: 2.5, cachedInput: 1.25, output: 10, contextWindow: 128000 });
    expect(priceFor('gpt-4o', { 'gpt-4o': { input: 1, output: 2 } })).toEqual({ input: 1, output: 2 });
    expect(priceFor('no-such-model')).toBeUndefined();
  });

  it('bills cached input at the cached price, and at the input price when there is none', () => {
    const usage = { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 };
    expect(costUsd(usage, { input: 2.5, cachedInput: 1.25, output: 10 })).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25 + 1, 10);
    expect(costUsd(usage, { input: 2, output: 0 })).toBeCloseTo(2, 10);
    // More cached tokens than input tokens (a server's odd report) never bills negative input.
    expect(
      costUsd({ inputTokens: 10, cachedInputTokens: 50, outputTokens: 0 }, { input: 1, cachedInput: 0.5, output: 0 }),
    ).toBeCloseTo(5 / 1_000_000, 12);
  });

  it('fills in warnAt and keeps the rest', () => {
    expect(validate({ maxIterations: 3 })).toEqual({ maxIterations: 3, warnAt: 0.8 });
  });

  it.each([
    [{}, 'budget: give at least one of maxIterations, maxTokens, contextShare, maxCostUsd, maxTimeMs'],
    [{ maxIterations: 2.5 }, 'budget: maxIterations must be a positive whole number, got 2.5'],
    [{ maxCostUsd: -1 }, 'budget: maxCostUsd must be a positive number, got -1'],
    [{ contextShare: 1.5 }, 'budget: contextShare must be a fraction above 0 and at most 1, got 1.5'],
    [{ maxTokens: 10, warnAt: 0 }, 'budget: warnAt must be a fraction above 0 and at most 1, got 0'],
    [{ maxTokens: 10, mode: 'strict' as 'hard' }, 'budget: mode must be "soft" or "hard", got "strict"'],
    [
      { maxTokens: 10, prices: { mine: { input: -1, output: 1 } } },
      'budget: the price of "mine" must be { input, output, cachedInput? } in USD per million tokens, each a number >= 0',
    ],
  ])('refuses %j with one line naming the fix', (options, message) => {
    expect(() => validate(options)).toThrow(expect.objectContaining({ code: 'config' }));
    expect(() => validate(options)).toThrow(message);
  });

  it('requirePrice: a known model, or none yet, passes; an unknown one is a config error naming the setting', () => {
    expect(() => requirePrice('gpt-4o', undefined, '--max-cost')).not.toThrow();
    expect(() => requirePrice(undefined, undefined, '--max-cost')).not.toThrow();
    expect(() => requirePrice('mine', { mine: { input: 1, output: 1 } }, 'maxCostUsd')).not.toThrow();
    expect(() => requirePrice('no-such-model', undefined, '--max-cost')).toThrow(
      expect.objectContaining({ code: 'config' }),
    );
    expect(() => requirePrice('no-such-model', undefined, '--max-cost')).toThrow(
      /^--max-cost needs the price of model "no-such-model", which stageloop does not know/,
    );
  });
});
