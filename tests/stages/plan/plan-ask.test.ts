// askWithRepairs(): one planner question with its repair turns. An unreadable reply is shown back with its exact
// problem, at most maxRepairs times; an invalid_response from the model is repaired like one; other model errors
// are the run's model failure.
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/model/types.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { askWithRepairs, isInvalidResponse, type Question } from '../../../stages/plan/plan-ask.js';
import type { Parsed } from '../../../stages/plan/plan-parse.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };
/** Reads a reply that must be a JSON number. */
const readNumber = (text: string): Parsed<number> => {
  const value: unknown = JSON.parse(/^\s*[\d.]+\s*$/.test(text) ? text : 'null');
  return typeof value === 'number' ? { ok: true, value } : { ok: false, problem: `"${text}" is not a number` };
};
const question = (maxRepairs: number): Question<number> => ({
  stage: 'plan',
  messages: [{ role: 'user', content: 'How many steps?' }],
  read: readNumber,
  maxRepairs,
});

describe('askWithRepairs', () => {
  it('a readable first reply: its value, no repair, its usage counted', async () => {
    const state = makeState();
    const model = new ScriptedModel([{ content: '3', usage }]);
    expect(await askWithRepairs(model, state, makeCtx(), question(2))).toEqual({ ok: true, value: 3, repairs: 0 });
    expect(state.usage.inputTokens).toBe(10);
    expect(model.requests[0]!.purpose).toBe('plan');
  });

  it('shows an unreadable reply back with its problem, says so in an event, and takes the repaired one', async () => {
    const state = makeState();
    const ctx = makeCtx();
    const model = new ScriptedModel([
      { content: 'three', usage },
      { content: '3', usage },
    ]);
    expect(await askWithRepairs(model, state, ctx, question(2))).toEqual({ ok: true, value: 3, repairs: 1 });
    const repairTurn = model.requests[1]!.messages;
    expect(repairTurn.slice(-2)).toEqual([
      { role: 'assistant', content: 'three' },
      {
        role: 'user',
        content: 'That reply could not be used: "three" is not a number\nReply again with only the corrected JSON.',
      },
    ]);
    expect(ctx.events.filter((event) => event.type === 'plan_repair').map((event) => event.data)).toEqual([
      { attempt: 1, maxRepairs: 2, problem: '"three" is not a number' },
    ]);
    expect(state.usage.inputTokens).toBe(20);
  });

  it('gives up after maxRepairs with the last problem', async () => {
    const model = new ScriptedModel([{ content: 'one' }, { content: 'two' }]);
    expect(await askWithRepairs(model, makeState(), makeCtx(), question(1))).toEqual({
      ok: false,
      problem: '"two" is not a number',
      repairs: 1,
    });
  });

  it("repairs an invalid_response from the model like an unreadable reply; any other model error is the run's failure", async () => {
    const invalid = new ModelError('invalid_response', 'the reply was not valid JSON');
    expect(isInvalidResponse(invalid)).toBe(true);
    expect(isInvalidResponse(new ModelError('server', 'boom'))).toBe(false);
    const repaired = new ScriptedModel([invalid, { content: '2' }]);
    expect(await askWithRepairs(repaired, makeState(), makeCtx(), question(1))).toEqual({
      ok: true,
      value: 2,
      repairs: 1,
    });
    expect(repaired.requests[1]!.messages.at(-1)!.content).toContain(
      'That reply could not be used: the reply was not valid JSON',
    );

    const state = makeState();
    const failing = new ScriptedModel([new ModelError('server', 'model down')]);
    await expect(askWithRepairs(failing, state, makeCtx(), question(3))).rejects.toThrow('model down');
    expect(state.modelFailure).toMatchObject({ kind: 'server', stage: 'plan' });
  });

  it('passes the temperature when the question has one', async () => {
    const model = new ScriptedModel([{ content: '1' }]);
    await askWithRepairs(model, makeState(), makeCtx(), { ...question(0), temperature: 0 });
    expect(model.requests[0]!.temperature).toBe(0);
  });
});
