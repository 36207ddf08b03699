import { describe, expect, it } from 'vitest';
import { summarize } from '../../../stages/loop/summarize.js';
import type { RunState } from '../../../src/engine/state.js';
import { ModelError } from '../../../src/model/types.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const usage = { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

function finishedPlan(state: RunState, secondOutcome: 'completed' | 'partial' = 'completed'): void {
  state.plan = planSlotFor({
    steps: [
      { description: 'Compute 12*12', status: 'completed' },
      { description: 'Add 10', status: 'completed' },
    ],
    current: 2,
    results: [
      { step: 1, description: 'Compute 12*12', outcome: 'completed', output: '144' },
      { step: 2, description: 'Add 10', outcome: secondOutcome, output: '154' },
    ],
    source: 'planner',
  });
}

describe('summarize stage', () => {
  it('only finalises an answer the run already has', async () => {
    const model = new ScriptedModel([]);
    const state = makeState({ answer: '395', partial: false });
    const ctx = makeCtx({ deps: { model }, zone: 'finalize' });
    await summarize().execute(state, ctx);
    expect(model.requests).toHaveLength(0);
    expect(state).toMatchObject({ answer: '395', partial: false, summarize: { path: 'final' } });
    expect(ctx.events.map((event) => [event.type, event.type === 'summary' ? event.data.path : null])).toEqual([
      ['summary', 'final'],
    ]);
  });

  it('composes the answer of a finished plan from the step results with one tool-less call', async () => {
    const model = new ScriptedModel([{ content: 'The answer is 154.', usage }]);
    const state = makeState({ task: 'Compute 12*12, then add 10' });
    finishedPlan(state);
    await summarize().execute(state, makeCtx({ deps: { model } }));
    const request = model.requests[0]!;
    expect(request).toMatchObject({ purpose: 'summarize' });
    expect(request.tools).toBeUndefined();
    expect(request.messages[1]!.content).toBe(
      'Task: Compute 12*12, then add 10\n\nStep results:\nStep 1 (completed): Compute 12*12\nResult: 144\nStep 2 (completed): Add 10\nResult: 154',
    );
    expect(state).toMatchObject({ answer: 'The answer is 154.', partial: false, summarize: { path: 'composed' } });
    expect(state.usage.inputTokens).toBe(7);
  });

  it('marks a composed answer partial when a step only partly finished, and composes without the model if it fails', async () => {
    const model = new ScriptedModel([new ModelError('server', 'upstream 500')]);
    const state = makeState();
    finishedPlan(state, 'partial');
    await summarize().execute(state, makeCtx({ deps: { model } }));
    expect(state.partial).toBe(true);
    expect(state.summarize).toEqual({ path: 'composed_without_model', modelError: 'upstream 500' });
    expect(state.answer).toMatch(/^154\n\nSteps:\nStep 1/);
  });

  it('after an early stop makes one tool-less call from task, status, completed and remaining work and the stop reason', async () => {
    const model = new ScriptedModel([{ content: 'Probably 395, but unchecked.' }]);
    const state = makeState({ task: 'What is 17 * 23 + 4?', iteration: 3 });
    state.messages = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'What is 17 * 23 + 4?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'a', name: 'calculator', arguments: '{"expression":"17 * 23"}' }],
      },
      { role: 'tool', toolCallId: 'a', name: 'calculator', content: '391' },
    ];
    await summarize({ maxIterations: 3 }).execute(state, makeCtx({ deps: { model } }));
    const request = model.requests[0]!;
    expect(request.tools).toBeUndefined();
    expect(request.messages[0]!.content).toMatch(/stopped before the task was finished/);
    expect(request.messages[1]!.content).toBe(
      'Task: What is 17 * 23 + 4?\n\nStatus: stopped early\n\nCompleted work:\ncalculator({"expression":"17 * 23"})\nResult: 391\n\n' +
        'Remaining work:\ngive the final answer to the task\n\nStop reason: the iteration cap of 3 was reached',
    );
    expect(state).toMatchObject({
      answer: 'Probably 395, but unchecked.',
      partial: true,
      summarize: { path: 'partial', stopReason: 'the iteration cap of 3 was reached' },
    });
  });

  it('writes a plain summary from the state when the model fails too: never an empty answer', async () => {
    const model = new ScriptedModel([{ content: '   ' }]);
    const state = makeState({ task: 'Compute 12*12, then add 10' });
    state.plan = planSlotFor({
      steps: [
        { description: 'Compute 12*12', status: 'completed' },
        { description: 'Add 10', status: 'in_progress' },
      ],
      current: 1,
      results: [{ step: 1, description: 'Compute 12*12', outcome: 'completed', output: '144' }],
      source: 'planner',
    });
    state.think = { calls: 4, lastFinishReason: 'length', truncationRetries: 3, step: 1, stepRounds: 1 };
    state.stop = { status: 'stopped', kind: 'truncation', stage: 'think', message: 'arguments were cut off 4 times' };
    await summarize().execute(state, makeCtx({ deps: { model } }));
    expect(state.partial).toBe(true);
    expect(state.summarize).toMatchObject({
      path: 'partial_without_model',
      stopReason: 'arguments were cut off 4 times (truncation, stage think)',
      modelError: 'the model returned an empty summary',
    });
    expect(state.answer).toBe(
      'I could not finish this task: arguments were cut off 4 times (truncation, stage think).\n\nWhat was done:\n- Step 1 (completed): Compute 12*12 Result: 144\n\nWhat remains:\n- Add 10',
    );
  });

  it('says why the run stopped from state.stop, which the runner writes before finalize', async () => {
    const state = makeState();
    state.stop = {
      status: 'stopped',
      kind: 'budget_tokens',
      stage: 'budget',
      message: 'the token budget of 1,000 is spent',
    };
    await summarize().execute(state, makeCtx());
    expect(state.answer).toMatch(
      /^I could not finish this task: the token budget of 1,000 is spent \(budget_tokens, stage budget\)\./,
    );
  });

  it('works with no model at all', async () => {
    const state = makeState();
    await summarize().execute(state, makeCtx());
    expect(state.answer).toMatch(
      /^I could not finish this task: the run ended before an answer was ready.*\n\nWhat was done:\n- nothing yet/s,
    );
    expect(state.partial).toBe(true);
  });

  describe('after an early stop', () => {
    const stopped = (kind: string, status: 'stopped' | 'cancelled' | 'failed' = 'stopped') =>
      makeState({
        task: 'What is 17 * 23 + 4?',
        iteration: 2,
        stop: { status, kind, stage: 'think', message: `ended by ${kind}` },
      });

    it('after a cancel builds the partial summary from the state: no model call, answer not empty, partial', () => {
      const model = new ScriptedModel([]);
      const state = stopped('cancelled', 'cancelled');
      const returned = summarize().execute(state, makeCtx({ deps: { model }, zone: 'finalize' }));
      expect(returned).toBeUndefined();
      expect(model.requests).toHaveLength(0);
      expect(state).toMatchObject({
        partial: true,
        summarize: { path: 'partial_without_model', modelError: 'not asked: the run was cancelled' },
      });
      expect(state.answer).toMatch(/^I could not finish this task: ended by cancelled/);
    });

    it('modelAfterCancel turns the model summary back on after a cancel', async () => {
      const model = new ScriptedModel([{ content: 'Probably 395.' }]);
      const state = stopped('cancelled', 'cancelled');
      await summarize({ modelAfterCancel: true }).execute(state, makeCtx({ deps: { model }, zone: 'finalize' }));
      expect(state).toMatchObject({ answer: 'Probably 395.', partial: true, summarize: { path: 'partial' } });
    });

    it.each(['budget_tokens', 'budget_cost', 'budget_time'])('makes no call after %s: that budget is spent', (kind) => {
      const model = new ScriptedModel([]);
      const state = stopped(kind);
      summarize().execute(state, makeCtx({ deps: { model }, zone: 'finalize' }));
      expect(model.requests).toHaveLength(0);
      expect(state.summarize?.modelError).toBe(`not asked: ${kind} is spent`);
    });

    it.each(['connection', 'auth'])('makes no call right after the model failed with %s', (kind) => {
      const model = new ScriptedModel([]);
      const state = stopped('error', 'failed');
      state.modelFailure = { kind, iteration: 2, stage: 'think' };
      summarize().execute(state, makeCtx({ deps: { model }, zone: 'finalize' }));
      expect(model.requests).toHaveLength(0);
      expect(state).toMatchObject({
        partial: true,
        summarize: { modelError: `not asked: the model just failed (${kind})` },
      });
    });

    it('still asks after a server error (the model may answer the next call)', async () => {
      const model = new ScriptedModel([{ content: 'Probably 395.' }]);
      const state = stopped('error', 'failed');
      state.modelFailure = { kind: 'server', iteration: 2, stage: 'think' };
      await summarize().execute(state, makeCtx({ deps: { model }, zone: 'finalize' }));
      expect(state.summarize?.path).toBe('partial');
    });

    it('the summary call has its own deadline: a model that ignores its signal is given up on', async () => {
      const never = { provider: 'test', modelName: 'never', chat: () => new Promise<never>(() => {}) };
      const state = stopped('max_iterations');
      const started = Date.now();
      await summarize({ timeoutMs: 150 }).execute(
        state,
        makeCtx({ deps: { model: never }, zone: 'finalize', signal: new AbortController().signal }),
      );
      // Well below summarize's default of 5 s, with room for a loaded machine (the message names the 150 ms too).
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(state).toMatchObject({
        partial: true,
        summarize: { path: 'partial_without_model', modelError: 'the summary call passed its own deadline of 150 ms' },
      });
    });

    it('an answer the run already had is kept but marked partial when the run did not complete', () => {
      const state = stopped('loop_detected');
      state.answer = '395';
      state.partial = false;
      summarize().execute(state, makeCtx({ zone: 'finalize' }));
      expect(state).toMatchObject({ answer: '395', partial: true, summarize: { path: 'final' } });
    });
  });
});
