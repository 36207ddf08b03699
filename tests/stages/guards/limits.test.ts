// limits (setup): the limits a run has, from the pipeline's guard stages for the run's model; every limit a guard
// does not set is off (null), the iteration cap the runner's.
import { describe, expect, it } from 'vitest';
import type { Stage } from '../../../src/engine/stage.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { limits, type LimitedStage } from '../../../stages/guards/limits.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const plain: Stage = { name: 'plain', execute: () => undefined };
const budgetLike: LimitedStage = {
  name: 'budget',
  execute: () => undefined,
  limitsInForce: (modelName) => ({
    maxTokens: 500,
    maxCostUsd: modelName === 'priced' ? 0.25 : null,
    maxIterations: 4,
  }),
};
const loopLike: LimitedStage = {
  name: 'loop-guard',
  execute: () => undefined,
  limitsInForce: () => ({ loopLimit: 3 }),
};

describe('limits', () => {
  it("writes the slot and the event from the guards, for the run's model; the rest is off", async () => {
    const state = makeState();
    const ctx = makeCtx({ deps: { model: new ScriptedModel([], { modelName: 'priced' }) } });
    await limits([plain, budgetLike, loopLike], 10).execute(state, ctx);
    const expected = {
      maxIterations: 4,
      maxTokens: 500,
      maxCostUsd: 0.25,
      timeoutSeconds: null,
      loopLimit: 3,
      contextBudget: null,
    };
    expect(state.limits).toEqual(expected);
    expect(ctx.events.filter((event) => event.type === 'limits').map((event) => event.data)).toEqual([expected]);
  });

  it("without guards: only the runner's iteration cap", async () => {
    const state = makeState();
    await limits([plain], 7).execute(state, makeCtx());
    expect(state.limits).toEqual({
      maxIterations: 7,
      maxTokens: null,
      maxCostUsd: null,
      timeoutSeconds: null,
      loopLimit: null,
      contextBudget: null,
    });
  });
});
