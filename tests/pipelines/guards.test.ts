import { describe, expect, it } from 'vitest';
import { applyGuards } from '../../pipelines/guards.js';
import { codeOf } from '../../src/common/stageloop-error.js';
import { definePipeline, stageNames } from '../../src/engine/pipeline.js';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../support/helpers.js';

const catchError = (action: () => unknown): unknown => {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
};

const zonesOf = (pipeline: ReturnType<typeof reactPipeline>) => ({
  setup: pipeline.setup.map((stage) => stage.name),
  iteration: pipeline.iteration.map((stage) => stage.name),
  finalize: pipeline.finalize.map((stage) => stage.name),
});

describe('applyGuards', () => {
  it('puts every guard in its place in ReAct and leaves the original pipeline unchanged', () => {
    const react = reactPipeline({ guards: false });
    const before = stageNames(react);
    const guarded = applyGuards(react, {
      maxTokens: 50_000,
      maxCostUsd: 0.5,
      timeoutSeconds: 30,
      maxIterations: 8,
      injection: 'flag',
      loopLimit: 3,
      contextBudget: 20_000,
    });
    expect(zonesOf(guarded)).toEqual({
      setup: ['limits', 'budget-start', 'injection-guard-task', 'injection-guard-tools', 'context'],
      iteration: [
        'budget',
        'prune',
        'think',
        'loop-guard',
        'act',
        'loop-guard-history',
        'injection-guard',
        'observe',
        'evaluate',
      ],
      finalize: ['summarize'],
    });
    expect(guarded.maxIterations).toBe(10);
    expect(stageNames(react)).toEqual(before);
  });

  it('works on Plan-Execute-Replan and adds only the guards whose flags are given', () => {
    const guarded = applyGuards(planExecuteReplanPipeline({ guards: false }), { loopLimit: 4, injection: 'block' });
    expect(zonesOf(guarded)).toEqual({
      setup: ['limits', 'injection-guard-task', 'injection-guard-tools', 'context', 'plan'],
      iteration: [
        'think',
        'loop-guard',
        'act',
        'loop-guard-history',
        'injection-guard',
        'observe',
        'evaluate',
        'replan',
      ],
      finalize: ['summarize'],
    });
    expect(stageNames(applyGuards(reactPipeline({ guards: false }), {}))).toEqual(
      stageNames(reactPipeline({ guards: false })),
    );
  });

  it('raises the iteration cap above --max-iterations so the budget, not the bare cap, ends the run', () => {
    expect(applyGuards(reactPipeline({ maxIterations: 5 }), { maxIterations: 20 }).maxIterations).toBe(21);
    expect(applyGuards(reactPipeline({ maxIterations: 30 }), { maxIterations: 20 }).maxIterations).toBe(30);
  });

  it('handles a pipeline without setup or think', () => {
    const bare = definePipeline({ name: 'bare', iteration: [{ name: 'act', async execute() {} }], maxIterations: 3 });
    expect(zonesOf(applyGuards(bare, { timeoutSeconds: 1, injection: 'redact' }))).toEqual({
      setup: ['limits', 'budget-start', 'injection-guard-task', 'injection-guard-tools'],
      iteration: ['budget', 'act', 'injection-guard'],
      finalize: [],
    });
  });

  it.each([
    [{ maxTokens: -1 }, 'maxTokens must be a whole number of tokens (0 turns the token budget off), got -1'],
    [{ maxCostUsd: -2 }, 'maxCostUsd must be a positive number of US dollars, got -2'],
    [{ timeoutSeconds: -5 }, 'timeoutSeconds must be a number of seconds (0 turns the time limit off), got -5'],
    [{ maxIterations: 2.5 }, 'maxIterations must be a positive whole number, got 2.5'],
    [
      { loopLimit: 1 },
      'loopLimit must be a whole number of at least 2 (the first call always runs), or 0 for off, got 1',
    ],
    [{ injection: 'warn' as 'flag' }, 'injection must be flag, redact or block, got "warn"'],
    [
      { onRepeat: 'ask', loopLimit: 0 },
      'onRepeat needs the repeated-call guard, but loopLimit 0 turns it off: drop one of the two',
    ],
  ] as const)(
    'rejects %j from code with a one-line config error naming the setting (the CLI names flags: tests/engine/guard-settings.test.ts)',
    (settings, message) => {
      expect(() => applyGuards(reactPipeline(), settings)).toThrow(message);
      expect(codeOf(catchError(() => applyGuards(reactPipeline(), settings)))).toBe('config');
    },
  );

  it('checks the price of a known model at assembly time', () => {
    expect(() => applyGuards(reactPipeline(), { maxCostUsd: 1 }, { modelName: 'my-local-thing' })).toThrow(
      /maxCostUsd needs the price of model "my-local-thing"/,
    );
    expect(() =>
      applyGuards(
        reactPipeline(),
        { maxCostUsd: 1 },
        { modelName: 'my-local-thing', prices: { 'my-local-thing': { input: 0, output: 0 } } },
      ),
    ).not.toThrow();
    expect(() => applyGuards(reactPipeline(), { maxCostUsd: 1 }, { modelName: 'gpt-4o-mini' })).not.toThrow();
  });

  it('says which stage a guard needs', () => {
    const noAct = definePipeline({
      name: 'responder',
      iteration: [{ name: 'think', async execute() {} }],
      maxIterations: 3,
    });
    expect(() => applyGuards(noAct, { loopLimit: 3 })).toThrow(
      'loopLimit needs a pipeline with an "act" stage; "responder" has: think',
    );
    expect(() => applyGuards(noAct, { injection: 'flag' }, { name: (setting) => `<${setting}>` })).toThrow(
      '<injection> needs a pipeline with an "act" stage',
    );
  });
});

describe('the default guards (docs/guards.md "Defaults")', () => {
  const limitsOf = (pipeline: ReturnType<typeof reactPipeline>, modelName?: string) => {
    const state = makeState();
    const stage = pipeline.setup.find((candidate) => candidate.name === 'limits')!;
    stage.execute(
      state,
      makeCtx({
        zone: 'setup',
        ...(modelName !== undefined && { deps: { model: new ScriptedModel([], { modelName }) } }),
      }),
    );
    return state.limits;
  };

  it('are in both built-in pipelines: token budget and pruning at 80% of the window, the repeated-call guard at 3, no time limit in code', () => {
    for (const pipeline of [reactPipeline(), planExecuteReplanPipeline()]) {
      expect(stageNames(pipeline)).toEqual(
        expect.arrayContaining(['limits', 'budget-start', 'budget', 'prune', 'loop-guard', 'loop-guard-history']),
      );
    }
    expect(limitsOf(reactPipeline())).toEqual({
      maxIterations: 10,
      maxTokens: 102_400,
      maxCostUsd: null,
      timeoutSeconds: null,
      loopLimit: 3,
      contextBudget: 102_400,
    });
    expect(limitsOf(reactPipeline(), 'gpt-4o-mini')).toMatchObject({ maxTokens: 102_400, contextBudget: 102_400 });
    expect(limitsOf(reactPipeline(), 'gpt-4')).toMatchObject({ maxTokens: 6_553, contextBudget: 6_553 });
    expect(limitsOf(planExecuteReplanPipeline())).toMatchObject({ maxIterations: 24, loopLimit: 3 });
  });

  it('each is switched off by 0, all of them by noGuards or guards: false; the iteration cap stays', () => {
    expect(
      limitsOf(reactPipeline({ guards: { maxTokens: 0, timeoutSeconds: 0, loopLimit: 0, contextBudget: 0 } })),
    ).toEqual({
      maxIterations: 10,
      maxTokens: null,
      maxCostUsd: null,
      timeoutSeconds: null,
      loopLimit: null,
      contextBudget: null,
    });
    expect(stageNames(reactPipeline({ guards: { maxTokens: 0 } }))).not.toContain('budget');
    expect(stageNames(reactPipeline({ guards: { loopLimit: 0 } }))).not.toContain('loop-guard');
    expect(stageNames(reactPipeline({ guards: { noGuards: true } }))).toEqual([
      'limits',
      'context',
      'think',
      'act',
      'observe',
      'evaluate',
      'summarize',
    ]);
    expect(stageNames(reactPipeline({ guards: false }))).toEqual([
      'context',
      'think',
      'act',
      'observe',
      'evaluate',
      'summarize',
    ]);
    expect(limitsOf(reactPipeline({ guards: { noGuards: true, maxTokens: 5_000 } }))).toMatchObject({
      maxTokens: 5_000,
      loopLimit: null,
      contextBudget: null,
    });
  });

  it('a flag replaces its default in place instead of adding a second guard', () => {
    const guarded = applyGuards(reactPipeline(), { maxTokens: 250, loopLimit: 5 });
    expect(stageNames(guarded).filter((name) => name === 'budget' || name === 'loop-guard')).toEqual([
      'budget',
      'loop-guard',
    ]);
    expect(limitsOf(guarded)).toMatchObject({ maxTokens: 250, loopLimit: 5, contextBudget: 102_400 });
  });

  it('the CLI adds a 10-minute time limit, off with --timeout 0 or --no-guards', () => {
    const cli = (flags: Parameters<typeof applyGuards>[1]) =>
      limitsOf(applyGuards(reactPipeline({ guards: false }), flags, { defaults: true, defaultTimeoutSeconds: 600 }));
    expect(cli({})).toMatchObject({ timeoutSeconds: 600, maxTokens: 102_400, loopLimit: 3 });
    expect(cli({ timeoutSeconds: 0 })).toMatchObject({ timeoutSeconds: null });
    expect(cli({ timeoutSeconds: 30 })).toMatchObject({ timeoutSeconds: 30 });
    expect(cli({ noGuards: true })).toMatchObject({ timeoutSeconds: null, maxTokens: null, loopLimit: null });
  });
});
