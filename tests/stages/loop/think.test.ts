import { describe, expect, it } from 'vitest';
import { think } from '../../../stages/loop/think.js';
import type { PlanSlot } from '../../../stages/plan/plan.js';
import type { RunState } from '../../../src/engine/state.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { ModelError, type ChatMessage } from '../../../src/model/types.js';
import { makeCtx, makeState, unobservedCtx } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';
import { planSlotFor } from '../../support/plan-slot.js';

const usage = { inputTokens: 100, outputTokens: 20, cachedInputTokens: 60, reasoningTokens: 3, estimated: false };
const start = (): ChatMessage[] => [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'What is 6 * 7?' },
];
const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });

function withPlan(state: RunState, current = 0): PlanSlot {
  state.plan = planSlotFor({
    steps: [
      { description: 'first', status: current === 0 ? 'in_progress' : 'completed' },
      { description: 'second', status: current === 1 ? 'in_progress' : 'pending' },
    ],
    current,
    results: [],
    source: 'planner',
  });
  return state.plan;
}

describe('think stage', () => {
  it('builds no model_reply data when nobody listens (it gives ctx.emit a function)', async () => {
    const model = new ScriptedModel([{ toolCalls: [calc('6 * 7')], usage }]);
    const state = makeState({ messages: start() });
    const ctx = unobservedCtx({ deps: { model, tools: testTools() } });
    await think().execute(state, ctx);
    expect(state.turn.toolCalls).toHaveLength(1);
    expect(state.usage.inputTokens).toBe(100);
    expect(ctx.built).toEqual([]);
  });

  it('sends exactly state.messages with the tools; a text reply is the answer and breaks the loop as completed', async () => {
    const model = new ScriptedModel([{ content: '42', usage }]);
    const state = makeState({ messages: start() });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    const signal = await think().execute(state, ctx);

    expect(signal).toMatchObject({ type: 'break_loop', kind: 'completed' });
    const request = model.requests[0]!;
    expect(request.purpose).toBe('think');
    expect(request.messages).toEqual(start());
    expect(request.tools?.map((tool) => tool.name)).toEqual(['calculator', 'lookup']);
    expect(state.messages).toEqual([...start(), { role: 'assistant', content: '42' }]);
    expect(state).toMatchObject({ answer: '42', partial: false });
    expect(state.usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cachedInputTokens: 60,
      reasoningTokens: 3,
      estimated: false,
    });
    expect(ctx.events.map((event) => event.type)).toEqual(['model_reply', 'answer']);
  });

  it('records tool calls for act, clears the previous results and appends the assistant message', async () => {
    const model = new ScriptedModel([{ content: 'let me compute', toolCalls: [calc('6 * 7'), calc('6 + 7')] }]);
    const state = makeState({ messages: start() });
    state.turn = {
      toolCalls: [{ id: 'old', name: 'x', arguments: '{}' }],
      results: [{ call: { id: 'old', name: 'x', arguments: '{}' }, result: { ok: true, content: 'y', durationMs: 1 } }],
    };
    expect(await think().execute(state, makeCtx({ deps: { model, tools: testTools() } }))).toBeUndefined();
    expect(state.turn.results).toEqual([]);
    expect(state.turn.toolCalls).toEqual([
      { id: 'call_1_1', ...calc('6 * 7') },
      { id: 'call_1_2', ...calc('6 + 7') },
    ]);
    // The preamble is an event (tool_preamble), not part of the conversation.
    expect(state.messages.at(-1)).toEqual({ role: 'assistant', content: '', toolCalls: state.turn.toolCalls });
    expect(state.answer).toBeUndefined();
  });

  it('never runs cut-off tool arguments: re-asks with a hint, and goes on when the retry is whole', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"6 *' }], finishReason: 'length', usage },
      { toolCalls: [calc('6 * 7')], usage },
    ]);
    const state = makeState({ messages: start() });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    expect(await think().execute(state, ctx)).toBeUndefined();
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(/cut off while writing tool-call arguments/);
    expect(state.turn.toolCalls).toEqual([{ id: 'call_2_1', ...calc('6 * 7') }]);
    expect(state.usage.inputTokens).toBe(200);
    expect(state.think).toMatchObject({ calls: 2, truncationRetries: 1 });
    expect(ctx.events.map((event) => event.type)).toEqual(['model_reply', 'truncation_retry', 'model_reply']);
  });

  it('aborts with kind truncation after 3 re-asks that are still cut off', async () => {
    const cut = { toolCalls: [{ name: 'calculator', arguments: '{"expr' }], finishReason: 'length' as const };
    const model = new ScriptedModel([cut, cut, cut, cut]);
    const state = makeState({ messages: start() });
    const signal = await think({ maxTruncationRetries: 3 }).execute(
      state,
      makeCtx({ deps: { model, tools: testTools() } }),
    );
    model.assertConsumed();
    expect(signal).toMatchObject({ type: 'abort_run', kind: 'truncation' });
    expect(state.turn.toolCalls).toEqual([]);
    expect(state.think!.stopReason).toMatch(/cut off by the length limit 4 times/);
  });

  it('keeps a text answer cut by length as a partial answer and stops the run as a truncation', async () => {
    const model = new ScriptedModel([{ content: 'a very long answer that was cut', finishReason: 'length' }]);
    const state = makeState({ messages: start() });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    expect(await think().execute(state, ctx)).toMatchObject({ type: 'abort_run', kind: 'truncation' });
    expect([state.answer, state.partial]).toEqual(['a very long answer that was cut', true]);
    expect(ctx.events.at(-1)!.data).toMatchObject({ cutByLength: true });
  });

  it('keeps what the provider needs back on the assistant message it appends; the readable reasoning only in the event', async () => {
    const replay = {
      provider: 'chat-completions http://127.0.0.1:1/v1',
      items: [{ reasoning_content: 'Use the tool.' }],
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"2+2"}' }], reasoning: 'Use the tool.', replay },
    ]);
    const state = makeState({ messages: start() });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    await think().execute(state, ctx);
    expect(state.messages.at(-1)).toMatchObject({ role: 'assistant', replay });
    expect(state.messages.at(-1)).not.toHaveProperty('reasoning');
    expect(ctx.events.find((event) => event.type === 'model_reply')!.data).toMatchObject({
      reasoning: 'Use the tool.',
    });
  });

  it('an answer in a turn forced tool-less by a spent limit stops the run under that limit, partial, answer kept', async () => {
    const model = new ScriptedModel([{ content: 'best effort: 42' }, new ModelError('connection', 'cannot reach')]);
    const state = makeState({
      messages: start(),
      nextTurn: {
        notes: [],
        withoutTools: true,
        limit: { kind: 'budget_tokens', reason: 'the token budget of 250 tokens was spent' },
      },
    });
    const signal = await think().execute(state, makeCtx({ deps: { model, tools: testTools() } }));
    expect(signal).toEqual({
      type: 'abort_run',
      kind: 'budget_tokens',
      reason: 'the token budget of 250 tokens was spent; the model answered in its final tool-less turn',
    });
    expect(state).toMatchObject({ answer: 'best effort: 42', partial: true });
    expect(state.nextTurn.limit).toBeUndefined();
    await expect(
      think().execute(state, makeCtx({ deps: { model, tools: testTools() }, iteration: 2 })),
    ).rejects.toThrow('cannot reach');
    expect(state.modelFailure).toEqual({ kind: 'connection', iteration: state.iteration, stage: 'think' });
  });

  it('with useTools false offers no tools and ignores tool calls it did not offer', async () => {
    const model = new ScriptedModel([{ content: 'plain answer', toolCalls: [calc('1+1')] }]);
    const state = makeState({ messages: start() });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    expect(await think({ useTools: false }).execute(state, ctx)).toMatchObject({ type: 'break_loop' });
    expect(model.requests[0]!.tools).toBeUndefined();
    expect(state.turn.toolCalls).toEqual([]);
    expect(ctx.events.map((event) => event.type)).toContain('tool_calls_ignored');
  });

  it('inside a plan a text reply finishes the current step instead of ending the loop', async () => {
    const model = new ScriptedModel([{ content: 'first is done: 144' }]);
    const state = makeState({ messages: start() });
    const plan = withPlan(state);
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    expect(await think().execute(state, ctx)).toBeUndefined();
    expect(state.answer).toBeUndefined();
    expect(plan.steps[0]!.status).toBe('completed');
    expect(plan.results).toEqual([
      { step: 1, id: 's1', description: 'first', outcome: 'completed', output: 'first is done: 144' },
    ]);
    expect(ctx.events.map((event) => event.type)).toEqual(['model_reply', 'step_finished', 'plan_updated']);
  });

  it('inside a plan an empty reply does not finish the step, except on its last round', async () => {
    const model = new ScriptedModel([{ content: '' }, { content: '  ' }]);
    const state = makeState({ messages: start() });
    const plan = withPlan(state);
    const stage = think({ maxStepToolRounds: 2 });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    await stage.execute(state, ctx);
    expect(plan.steps[0]!.status).toBe('in_progress');
    expect(ctx.events.map((event) => event.type)).toContain('empty_reply');
    await stage.execute(state, ctx);
    expect(plan.results[0]).toMatchObject({ outcome: 'partial', output: 'The step did not finish within 2 rounds.' });
  });

  it('gives each step its own round budget; the last round has no tools and a step that still asks for them is partial', async () => {
    const model = new ScriptedModel([
      { toolCalls: [calc('1+1')] },
      { toolCalls: [calc('2+2')] },
      { toolCalls: [calc('3+3')] },
    ]);
    const state = makeState({ messages: start() });
    const plan = withPlan(state);
    state.observe = { step: 0, results: [{ tool: 'calculator', arguments: '{}', ok: true, content: '2' }] };
    const stage = think({ maxStepToolRounds: 3 });
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    await stage.execute(state, ctx);
    await stage.execute(state, ctx);
    expect(model.requests[1]!.tools).toHaveLength(2);
    await stage.execute(state, ctx);

    const last = model.requests[2]!;
    expect(last.tools).toBeUndefined();
    expect(last.messages.at(-1)!.content).toMatch(/last round for the current step: do not call tools/);
    expect(state.turn.toolCalls).toEqual([]);
    expect(plan.steps[0]!.status).toBe('completed');
    expect(plan.results[0]).toMatchObject({
      outcome: 'partial',
      output: expect.stringMatching(/did not finish within 3 rounds\. Latest tool results: calculator: 2/),
    });
    expect(ctx.events.map((event) => event.type)).toContain('step_last_round');
    expect(ctx.events.map((event) => event.type)).toContain('tool_calls_ignored');

    // The next step starts with a fresh budget.
    plan.current = 1;
    plan.steps[1]!.status = 'in_progress';
    const next = new ScriptedModel([{ toolCalls: [calc('5+5')] }]);
    await stage.execute(state, makeCtx({ deps: { model: next, tools: testTools() } }));
    expect(next.requests[0]!.tools).toHaveLength(2);
    expect(state.think).toMatchObject({ step: 1, stepRounds: 1 });
  });

  it('fails clearly without a model', async () => {
    // Before any waiting, so it throws at once; the runner treats a throw and a rejection alike.
    expect(() => think().execute(makeState(), makeCtx())).toThrow(/stage "think" needs a model/);
  });
});
