import { describe, expect, it } from 'vitest';
import { budget, costUsd, priceFor } from '../../../stages/guards/budget.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeClock, makeCtx, makeState } from '../../support/helpers.js';

const model = (modelName: string) => new ScriptedModel([], { modelName });

describe('budget: iterations', () => {
  it('warns at 80%, makes the last turn tools-less, aborts with budget_iterations after it', async () => {
    const stage = budget({ maxIterations: 5 });
    const state = makeState();
    const ctx = makeCtx();
    for (const iteration of [1, 2, 3]) {
      state.iteration = iteration;
      expect(await stage.execute(state, ctx)).toBeUndefined();
    }
    expect(state.nextTurn.notes).toEqual([]);
    state.iteration = 4;
    await stage.execute(state, ctx);
    expect(state.nextTurn.notes).toEqual([expect.stringContaining('iteration budget is 80% spent (4 of 5)')]);
    expect(ctx.events.map((event) => event.type)).toEqual(['budget_warning']);
    state.nextTurn.notes = [];
    state.iteration = 5;
    expect(await stage.execute(state, ctx)).toBeUndefined();
    expect(state.nextTurn.withoutTools).toBe(true);
    expect(state.nextTurn.notes[0]).toContain('No tools are available');
    expect(state.budget?.finalTurn).toEqual({ kind: 'iterations', iteration: 5 });
    state.iteration = 6;
    const signal = await stage.execute(state, ctx);
    expect(signal).toMatchObject({ type: 'abort_run', kind: 'budget_iterations' });
  });
});

describe('budget: tokens', () => {
  it('counts input + output from state.usage and grades warn, tools-less turn, abort', async () => {
    const stage = budget({ maxTokens: 1000, warnAt: 0.5 });
    const state = makeState();
    const ctx = makeCtx();
    state.iteration = 1;
    state.usage.inputTokens = 400;
    state.usage.outputTokens = 150;
    await stage.execute(state, ctx);
    expect(state.nextTurn.notes[0]).toContain('token budget is 55% spent (550 of 1000)');
    state.iteration = 2;
    state.usage.inputTokens = 900;
    await stage.execute(state, ctx);
    expect(state.nextTurn.withoutTools).toBe(true);
    expect(state.budget?.spent.tokens).toBe(1050);
    state.iteration = 3;
    state.usage.outputTokens = 300;
    expect(await stage.execute(state, ctx)).toMatchObject({ type: 'abort_run', kind: 'budget_tokens' });
  });

  it('estimates a turn with the tokenizer when the model reported no usage', async () => {
    const stage = budget({ maxTokens: 100_000 });
    const state = makeState({
      messages: [
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'What is 2 + 2?' },
      ],
    });
    const ctx = makeCtx();
    state.iteration = 1;
    await stage.execute(state, ctx);
    state.messages.push({ role: 'assistant', content: 'The answer is four.' });
    state.iteration = 2;
    await stage.execute(state, ctx);
    expect(state.budget?.estimated.inputTokens).toBeGreaterThan(10);
    expect(state.budget?.estimated.outputTokens).toBeGreaterThan(4);
    expect(state.budget?.spent.tokens).toBe(state.budget!.estimated.inputTokens + state.budget!.estimated.outputTokens);
  });

  it('does not estimate when the model reports usage', async () => {
    const stage = budget({ maxTokens: 100_000 });
    const state = makeState();
    const ctx = makeCtx();
    state.iteration = 1;
    await stage.execute(state, ctx);
    state.usage.inputTokens = 50;
    state.iteration = 2;
    await stage.execute(state, ctx);
    expect(state.budget?.estimated).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});

describe('budget: cost', () => {
  it('prices usage per model from the maintained table, cached input at the cached price', () => {
    expect(priceFor('gpt-4o-2024-08-06')).toEqual(priceFor('gpt-4o'));
    expect(priceFor('llama3.1:8b')).toEqual({ input: 0, output: 0 });
    expect(priceFor('gpt-4.5-turbo-of-nowhere')).toBeUndefined();
    expect(
      costUsd(
        { inputTokens: 1_000_000, outputTokens: 1_000_000, cachedInputTokens: 500_000 },
        { input: 2, cachedInput: 1, output: 8 },
      ),
    ).toBe(1 + 0.5 + 8);
  });

  it('aborts with budget_cost after the tools-less turn also overruns', async () => {
    const stage = budget({ maxCostUsd: 0.01 });
    const state = makeState();
    const ctx = makeCtx({ deps: { model: model('gpt-4o-mini') } });
    state.iteration = 1;
    state.usage.inputTokens = 40_000; // $0.006
    await stage.execute(state, ctx);
    expect(state.budget?.spent.costUsd).toBeCloseTo(0.006, 6);
    expect(state.nextTurn.notes).toEqual([]);
    state.usage.outputTokens = 10_000; // + $0.006
    state.iteration = 2;
    await stage.execute(state, ctx);
    expect(state.nextTurn.withoutTools).toBe(true);
    state.iteration = 3;
    expect(await stage.execute(state, ctx)).toMatchObject({ kind: 'budget_cost' });
  });

  it('user prices override and extend the table', async () => {
    const stage = budget({ maxCostUsd: 1, prices: { 'my-model': { input: 1000, output: 1000 } } });
    const state = makeState({ iteration: 1 });
    state.usage.inputTokens = 900;
    await stage.execute(state, makeCtx({ deps: { model: model('my-model') } }));
    expect(state.budget?.spent.costUsd).toBeCloseTo(0.9);
    expect(state.nextTurn.notes[0]).toContain('cost budget is 90% spent');
  });

  it('an unknown model with a cost budget is a configuration error naming the model and the fix', async () => {
    const stage = budget({ maxCostUsd: 1 });
    const attempt = stage.start.execute(makeState(), makeCtx({ zone: 'setup', deps: { model: model('mystery-7b') } }));
    await expect(attempt).rejects.toThrow(expect.objectContaining({ code: 'config' }));
    await expect(attempt).rejects.toThrow(/"mystery-7b".*prices: \{ "mystery-7b"/);
  });
});

describe('budget: time', () => {
  it('the start stage records run start and arms the deadline; the check warns, then stops', async () => {
    const clock = makeClock();
    const stage = budget({ maxTimeMs: 10_000 });
    const state = makeState();
    const ctx = makeCtx({ zone: 'setup', deps: { clock } });
    await stage.start.execute(state, ctx);
    expect(ctx.deadlines).toEqual([
      { at: clock.now() + 10_000, reason: 'the time budget of 10 s was reached', kind: 'budget_time' },
    ]);
    clock.advance(8_500);
    const loop = makeCtx({ deps: { clock } });
    state.iteration = 1;
    await stage.execute(state, loop);
    expect(state.nextTurn.notes[0]).toContain('time budget is 85% spent');
    expect(loop.deadlines[0]?.at).toBe(ctx.deadlines[0]?.at);
    clock.advance(2_000);
    state.iteration = 2;
    expect(await stage.execute(state, loop)).toMatchObject({ kind: 'budget_time' });
  });

  it('without the start stage the clock starts on the first check', async () => {
    const stage = budget({ maxTimeMs: 1_000 });
    const ctx = makeCtx();
    const state = makeState({ iteration: 1 });
    await stage.execute(state, ctx);
    expect(ctx.deadlines[0]?.at).toBe(state.budget!.startedAt + 1_000);
  });
});

describe('budget: options', () => {
  it.each([
    [{}, 'give at least one'],
    [{ maxTokens: -5 }, 'maxTokens must be a positive whole number, got -5'],
    [{ maxIterations: 2.5 }, 'maxIterations must be a positive whole number'],
    [{ maxCostUsd: Number.NaN }, 'maxCostUsd must be a positive number'],
    [{ maxTokens: 10, warnAt: 1.5 }, 'warnAt must be a fraction'],
    [{ maxCostUsd: 1, prices: { x: { input: -1, output: 1 } } }, 'the price of "x"'],
  ])('rejects %j', (options, message) => {
    expect(() => budget(options)).toThrow(expect.objectContaining({ code: 'config' }));
    expect(() => budget(options)).toThrow(message);
  });

  it('keeps nothing per run in the stage: two runs on one stage are independent', async () => {
    const stage = budget({ maxIterations: 2 });
    const first = makeState({ iteration: 2 });
    const second = makeState({ iteration: 1 });
    await stage.execute(first, makeCtx());
    await stage.execute(second, makeCtx());
    expect(first.nextTurn.withoutTools).toBe(true);
    expect(second.nextTurn.withoutTools).toBe(false);
    expect(JSON.parse(JSON.stringify(first.budget))).toEqual(first.budget);
  });
});

describe('budget: the forced turn names its limit', () => {
  it('a spent budget sets nextTurn.limit with the kind the forced answer is reported under', async () => {
    const stage = budget({ maxTokens: 100 });
    const state = makeState({ iteration: 1 });
    state.usage.inputTokens = 120;
    await stage.execute(state, makeCtx());
    expect(state.nextTurn).toMatchObject({
      withoutTools: true,
      limit: { kind: 'budget_tokens', reason: 'the token budget of 100 tokens was spent' },
    });
  });
});

describe('budget: hard mode', () => {
  const conversation = [
    { role: 'system' as const, content: 'You are a careful assistant.' },
    { role: 'user' as const, content: 'What is 17 * 23 + 4? '.repeat(20) },
  ];

  it('stops before a call whose estimated tokens would cross the limit, and grants no final turn', async () => {
    const stage = budget({ maxTokens: 200, mode: 'hard' });
    const state = makeState({ iteration: 1, messages: conversation });
    const signal = await stage.execute(state, makeCtx());
    expect(signal).toMatchObject({
      type: 'abort_run',
      kind: 'budget_tokens',
      reason: expect.stringMatching(
        /^the next model call \(about \d+ tokens\) would cross the token budget of 200 \(hard mode\)$/,
      ),
    });
    expect(state.nextTurn.withoutTools).toBe(false);
  });

  it('lets a call that fits go ahead, then counts the largest output so far into the next estimate', async () => {
    const stage = budget({ maxTokens: 2_000, mode: 'hard' });
    const state = makeState({ iteration: 1, messages: conversation });
    expect(await stage.execute(state, makeCtx())).toBeUndefined();
    state.iteration = 2;
    state.usage.inputTokens = 150;
    state.usage.outputTokens = 900;
    const signal = await stage.execute(state, makeCtx());
    expect(state.budget?.output?.largestTurn).toBe(900);
    expect(signal).toMatchObject({ type: 'abort_run', kind: 'budget_tokens' });
  });

  it('a spent budget stops at once in hard mode', async () => {
    const stage = budget({ maxTokens: 100, mode: 'hard' });
    const state = makeState({ iteration: 1 });
    state.usage.inputTokens = 120;
    expect(await stage.execute(state, makeCtx())).toMatchObject({
      type: 'abort_run',
      kind: 'budget_tokens',
      reason: 'the token budget is spent (hard mode: no final turn)',
    });
  });

  it('an unknown mode is a configuration error', () => {
    expect(() => budget({ maxTokens: 100, mode: 'strict' as 'hard' })).toThrow(
      /mode must be "soft" or "hard", got "strict"/,
    );
  });
});
