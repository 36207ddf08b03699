import { describe, expect, it } from 'vitest';
import { applyGuards } from '../../app/guards.js';
import { GuardConfigError } from '../../stages/guard-config-error.js';
import { definePipeline, stageNames } from '../../src/engine/pipeline.js';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';

const zonesOf = (pipeline: ReturnType<typeof reactPipeline>) => ({
  setup: pipeline.setup.map((stage) => stage.name),
  iteration: pipeline.iteration.map((stage) => stage.name),
  finalize: pipeline.finalize.map((stage) => stage.name),
});

describe('applyGuards', () => {
  it('puts every guard in its place in ReAct and leaves the original pipeline unchanged', () => {
    const react = reactPipeline();
    const before = stageNames(react);
    const guarded = applyGuards(react, { maxTokens: 50_000, maxCostUsd: 0.5, timeoutSeconds: 30, maxIterations: 8, injection: 'flag', loopLimit: 3, contextBudget: 20_000 });
    expect(zonesOf(guarded)).toEqual({
      setup: ['budget-start', 'injection-guard-task', 'injection-guard-tools', 'context'],
      iteration: ['budget', 'prune', 'think', 'loop-guard', 'act', 'loop-guard-history', 'injection-guard', 'observe', 'evaluate'],
      finalize: ['summarize'],
    });
    expect(guarded.maxIterations).toBe(10);
    expect(stageNames(react)).toEqual(before);
  });

  it('works on Plan-Execute-Replan and adds only the guards whose flags are given', () => {
    const guarded = applyGuards(planExecuteReplanPipeline(), { loopLimit: '4', injection: 'block' });
    expect(zonesOf(guarded)).toEqual({
      setup: ['injection-guard-task', 'injection-guard-tools', 'context', 'plan'],
      iteration: ['think', 'loop-guard', 'act', 'loop-guard-history', 'injection-guard', 'observe', 'evaluate', 'replan'],
      finalize: ['summarize'],
    });
    expect(stageNames(applyGuards(reactPipeline(), {}))).toEqual(stageNames(reactPipeline()));
  });

  it('raises the iteration cap above --max-iterations so the budget, not the bare cap, ends the run', () => {
    expect(applyGuards(reactPipeline({ maxIterations: 5 }), { maxIterations: 20 }).maxIterations).toBe(21);
    expect(applyGuards(reactPipeline({ maxIterations: 30 }), { maxIterations: 20 }).maxIterations).toBe(30);
  });

  it('handles a pipeline without setup or think', () => {
    const bare = definePipeline({ name: 'bare', iteration: [{ name: 'act', async execute() {} }], maxIterations: 3 });
    expect(zonesOf(applyGuards(bare, { timeoutSeconds: 1, injection: 'redact' }))).toEqual({
      setup: ['budget-start', 'injection-guard-task', 'injection-guard-tools'],
      iteration: ['budget', 'act', 'injection-guard'],
      finalize: [],
    });
  });

  it.each([
    [{ maxTokens: 0 }, '--max-tokens must be a positive whole number of tokens, got 0'],
    [{ maxTokens: '12k' }, '--max-tokens must be a positive whole number of tokens, got "12k"'],
    [{ maxCostUsd: -2 }, '--max-cost must be a positive number of US dollars, got -2'],
    [{ timeoutSeconds: 'soon' }, '--timeout must be a positive number of seconds, got "soon"'],
    [{ maxIterations: 2.5 }, '--max-iterations must be a positive whole number, got 2.5'],
    [{ loopLimit: 1 }, '--loop-limit must be a whole number of at least 2 (the first call always runs), got 1'],
    [{ contextBudget: '' }, '--context-budget must be a positive whole number of tokens, got ""'],
    [{ injection: 'warn' as 'flag' }, '--guard injection=warn is not an action: use flag, redact or block'],
  ])('rejects %j with a one-line message', (flags, message) => {
    expect(() => applyGuards(reactPipeline(), flags)).toThrow(GuardConfigError);
    expect(() => applyGuards(reactPipeline(), flags)).toThrow(message);
  });

  it('checks the price of a known model at assembly time', () => {
    expect(() => applyGuards(reactPipeline(), { maxCostUsd: 1 }, { modelName: 'my-local-thing' })).toThrow(/--max-cost needs the price of model "my-local-thing"/);
    expect(() => applyGuards(reactPipeline(), { maxCostUsd: 1 }, { modelName: 'my-local-thing', prices: { 'my-local-thing': { input: 0, output: 0 } } })).not.toThrow();
    expect(() => applyGuards(reactPipeline(), { maxCostUsd: 1 }, { modelName: 'gpt-4o-mini' })).not.toThrow();
  });

  it('says which stage a guard needs', () => {
    const noAct = definePipeline({ name: 'responder', iteration: [{ name: 'think', async execute() {} }], maxIterations: 3 });
    expect(() => applyGuards(noAct, { loopLimit: 3 })).toThrow('--loop-limit needs a pipeline with an "act" stage; "responder" has: think');
  });
});
