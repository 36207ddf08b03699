import { describe, expect, it } from 'vitest';
import { budget } from '../../../stages/guards/budget.js';
import { limits } from '../../../stages/guards/limits.js';
import { loopGuard } from '../../../stages/guards/loop-guard.js';
import { prune } from '../../../stages/guards/prune.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const model = (modelName: string) => new ScriptedModel([], { modelName });

describe('limits', () => {
  it("resolves the limits for each run's model and gives every run its own copy", async () => {
    const stage = limits([budget({ contextShare: 0.8 }), prune(), loopGuard()], 11);
    const first = makeState();
    const firstCtx = makeCtx({ zone: 'setup', deps: { model: model('gpt-4o') } });
    await stage.execute(first, firstCtx);
    expect(first.limits).toEqual({
      maxIterations: 11,
      maxTokens: 102_400,
      maxCostUsd: null,
      timeoutSeconds: null,
      loopLimit: 3,
      contextBudget: 102_400,
    });
    expect(firstCtx.events[0]).toMatchObject({ type: 'limits', data: first.limits });
    // A run that changes its own limits changes no other run's, nor the event of the next one.
    first.limits!.maxTokens = 1;
    const second = makeState();
    const secondCtx = makeCtx({ zone: 'setup', deps: { model: model('gpt-4o') } });
    await stage.execute(second, secondCtx);
    expect(second.limits?.maxTokens).toBe(102_400);
    expect(secondCtx.events[0]).toMatchObject({ data: { maxTokens: 102_400 } });
    // Another model, the same stage: that model's window.
    const third = makeState();
    await stage.execute(third, makeCtx({ zone: 'setup', deps: { model: model('gpt-5') } }));
    expect(third.limits).toMatchObject({ maxTokens: 320_000, contextBudget: 320_000 });
  });
});
