// Prices and context windows from @pydantic/genai-prices, under the override file for private models and local models.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { costUsd } from '../../stages/guards/budget-options.js';
import { contextWindowFor } from '../../stages/shared/context-window.js';
import { listedPrice, overridePrices, priceFor } from '../../src/model/model-prices.js';

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
  delete process.env.STAGELOOP_PRICES;
});

describe('model prices', () => {
  it('come from @pydantic/genai-prices, with cache read and write prices and a dated name finding its model', () => {
    expect(priceFor('gpt-4o-2024-08-06')).toEqual({ input: 2.5, cachedInput: 1.25, output: 10, contextWindow: 128000 });
    expect(priceFor('claude-haiku-4-5')).toMatchObject({
      input: 1,
      cachedInput: 0.1,
      cacheWriteInput: 1.25,
      output: 5,
    });
    expect(priceFor('openai/gpt-4o')).toEqual(priceFor('gpt-4o'));
    expect(listedPrice('no-such-model')).toBeUndefined();
  });

  it('local models cost nothing, by name or with a tag, and a hosted model of the same family is not one', () => {
    expect(priceFor('llama3.1:8b')).toEqual({ input: 0, output: 0 });
    expect(priceFor('stageloop-offline')).toEqual({ input: 0, output: 0 });
    expect(priceFor('mistral-large-latest')?.input).toBeGreaterThan(0);
  });

  it('cached input is billed at the cached rate of the listed price', () => {
    const price = priceFor('gpt-4o')!;
    const usage = { inputTokens: 1_000_000, cachedInputTokens: 600_000, outputTokens: 0 };
    expect(costUsd(usage, price)).toBeCloseTo(0.4 * 2.5 + 0.6 * 1.25, 10);
  });

  it('reads private models from the override file STAGELOOP_PRICES names, prices and context window', () => {
    folder = mkdtempSync(join(tmpdir(), 'stageloop-prices-'));
    const file = join(folder, 'prices.json');
    writeFileSync(file, JSON.stringify({ models: { 'acme-7b': { input: 0.2, output: 0.4, contextWindow: 32000 } } }));
    process.env.STAGELOOP_PRICES = file;
    expect(priceFor('acme-7b-2026')).toEqual({ input: 0.2, output: 0.4, contextWindow: 32000 });
    expect(contextWindowFor('acme-7b')).toBe(32000);
    expect(contextWindowFor('gpt-4.1')).toBe(listedPrice('gpt-4.1')!.contextWindow);
    expect(contextWindowFor('gpt-4.1')).toBeGreaterThan(128000);
    expect(contextWindowFor('llama3.1:8b')).toBe(131072);
  });

  it('names a broken override file and the format in one line', () => {
    const here = (folder = mkdtempSync(join(tmpdir(), 'stageloop-prices-')));
    const file = join(here, 'prices.json');
    writeFileSync(file, JSON.stringify({ models: { mine: { input: 'cheap', output: 1 } } }));
    expect(() => overridePrices({ STAGELOOP_PRICES: file })).toThrow(
      `${file}: the price of "mine" needs "input" and "output" (and may have "cachedInput", "cacheWriteInput", "contextWindow"), each a number >= 0 (format: {"models": {"NAME": {"input": 1, "output": 2}}}, USD per million tokens)`,
    );
    expect(() => overridePrices({ STAGELOOP_PRICES: join(here, 'missing.json') })).toThrow(
      /^STAGELOOP_PRICES: cannot read .*missing\.json/,
    );
  });
});
