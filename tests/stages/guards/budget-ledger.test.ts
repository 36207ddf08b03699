// The budget's bookkeeping on its own: the slot, the limits in force, what was spent, hard mode's next-call estimate.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { budgetLedger } from '../../../stages/guards/budget-ledger.js';
import { validate } from '../../../stages/guards/budget-options.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';

describe('budgetLedger', () => {
  it('makes the slot once and counts what the run spent, in place', () => {
    const ledger = budgetLedger(validate({ maxTokens: 1000 }));
    const state = makeState();
    const ctx = makeCtx();
    const slot = ledger.start(state, ctx);
    expect(ledger.start(state, ctx)).toBe(slot);
    expect(slot.spent).toEqual({ iterations: 0, tokens: 0, costUsd: 0, timeMs: 0 });
    state.iteration = 2;
    state.usage.inputTokens = 300;
    state.usage.outputTokens = 50;
    expect(ledger.measure(state, ctx, slot)).toBeUndefined();
    expect(slot.spent).toEqual({ iterations: 2, tokens: 350, costUsd: 0, timeMs: 0 });
    expect(slot.output).toEqual({ total: 50, largestTurn: 50 });
    expect(ledger.farFromLimits(slot)).toBe(true);
    state.usage.inputTokens = 900;
    ledger.measure(state, ctx, slot);
    expect(ledger.farFromLimits(slot)).toBe(false);
  });

  it("resolves the token limit from contextShare for the run's model, and adds what a person extended", () => {
    const ledger = budgetLedger(validate({ contextShare: 0.5, contextWindows: { small: 8000 }, maxIterations: 10 }));
    const state = makeState();
    const slot = ledger.start(state, makeCtx({ deps: { model: new ScriptedModel([], { modelName: 'small' }) } }));
    expect(slot.tokenLimit).toBe(4000);
    expect(ledger.tokenLimitFor('small')).toBe(4000);
    expect(ledger.limitsOf(slot)).toMatchObject({ tokens: 4000, iterations: 10 });
    expect(ledger.limitsOf(slot)).toBe(ledger.limitsOf(slot));
    slot.extended = { tokens: 500, cost: 1 };
    expect(ledger.limitsIn(slot)).toMatchObject({ tokens: 4500, iterations: 10 });
    expect(ledger.limitsIn(slot).cost).toBeUndefined();
    expect(ledger.limitsOf(slot).tokens).toBe(4000);
  });

  it("resolves a model's token limit once per budget stage: later runs read no environment nor price file", () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-ledger-'));
    const prices = (window: number) => {
      const file = join(folder, `prices-${window}.json`);
      writeFileSync(file, JSON.stringify({ models: { 'acme-7b': { input: 1, output: 1, contextWindow: window } } }));
      return file;
    };
    const ctx = makeCtx({ deps: { model: new ScriptedModel([], { modelName: 'acme-7b' }) } });
    try {
      process.env.STAGELOOP_PRICES = prices(32000);
      const ledger = budgetLedger(validate({ contextShare: 0.5 }));
      expect(ledger.start(makeState(), ctx).tokenLimit).toBe(16000);
      // Every run starts its budget: the limit the first one resolved is kept, whatever the variable says now.
      process.env.STAGELOOP_PRICES = prices(64000);
      expect(ledger.start(makeState(), ctx).tokenLimit).toBe(16000);
      // A budget stage made afterwards resolves afresh.
      expect(budgetLedger(validate({ contextShare: 0.5 })).start(makeState(), ctx).tokenLimit).toBe(32000);
    } finally {
      delete process.env.STAGELOOP_PRICES;
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('hard mode: names the limit the next call would cross, or none', async () => {
    const ledger = budgetLedger(validate({ maxTokens: 100, mode: 'hard' }));
    const state = makeState({ messages: [{ role: 'user', content: 'What is 2 + 2?' }] });
    const ctx = makeCtx();
    const slot = ledger.start(state, ctx);
    expect(
      await ledger.nextCallCrosses(state, ctx, slot, { iterations: 0, tokens: 0, cost: 0, time: 0 }),
    ).toBeUndefined();
    expect(
      await ledger.nextCallCrosses(state, ctx, slot, { iterations: 0, tokens: 99, cost: 0, time: 0 }),
    ).toMatchObject({ kind: 'tokens', reason: expect.stringContaining('would cross the token budget of 100') });
  });
});
