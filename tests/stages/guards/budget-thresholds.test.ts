// The budget's usual check compares what was spent with warning thresholds made once per set of limits: a run whose limits differ gets its own.
import { describe, expect, it } from 'vitest';
import { budget } from '../../../stages/guards/budget.js';
import { warningThresholds } from '../../../stages/guards/budget-decide.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const model = (modelName: string) => new ScriptedModel([], { modelName });

describe('budget warning thresholds', () => {
  it('are made again for a run whose model has another token limit', async () => {
    const stage = budget({
      contextShare: 0.5,
      warnAt: 0.5,
      contextWindows: { 'big-model': 100_000, 'small-model': 10_000 },
    });
    const run = async (modelName: string) => {
      const state = makeState();
      const ctx = makeCtx({ deps: { model: model(modelName) } });
      await stage.start.execute(state, makeCtx({ deps: { model: model(modelName) }, zone: 'setup' }));
      state.iteration = 1;
      state.usage.inputTokens = 2_600;
      state.usage.outputTokens = 400;
      await stage.execute(state, ctx);
      return state.nextTurn.notes;
    };
    // 3,000 tokens: far from 25,000 (half of the big model's 50,000), past 2,500 (half of the small one's 5,000).
    expect(await run('big-model')).toEqual([]);
    expect(await run('small-model')).toEqual([expect.stringContaining('token budget is 60% spent (3000 of 5000)')]);
    expect(await run('big-model')).toEqual([]);
  });

  it('are the warning share of each limit, and never reached for a kind without one', () => {
    const limits = { iterations: 10, tokens: 1_000 };
    expect(warningThresholds(limits, 0.8)).toEqual({
      limits,
      iterations: 8,
      tokens: 800,
      cost: Infinity,
      time: Infinity,
    });
  });
});
