import { describe, expect, it } from 'vitest';
import { plan } from '../../stages/plan.js';
import { ModelError } from '../../src/model/types.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../support/helpers.js';
import { testTools } from '../support/stage-tools.js';

const usage = { inputTokens: 30, outputTokens: 10, cachedInputTokens: 5, reasoningTokens: 0, estimated: false };
const steps = (...descriptions: string[]) => ({ steps: descriptions.map((description) => ({ description, status: 'pending' })) });

describe('plan stage', () => {
  it('asks the planner with a zod response format and starts the first step with a rendered brief', async () => {
    const model = new ScriptedModel([{ content: JSON.stringify(steps('Compute 12*12', 'Add 10')), parsed: steps('Compute 12*12', 'Add 10'), usage }]);
    const state = makeState({ task: 'Compute 12*12, then add 10' });
    const ctx = makeCtx({ deps: { model, tools: testTools() }, zone: 'setup' });
    expect(await plan().execute(state, ctx)).toBeUndefined();

    const request = model.requests[0]!;
    expect(request.purpose).toBe('plan');
    expect(request.responseFormat?.name).toBe('plan');
    expect(typeof (request.responseFormat?.schema as { safeParse?: unknown }).safeParse).toBe('function');
    expect(request.messages[0]!.content).toContain('between 1 and 8 steps');
    expect(request.messages[0]!.content).toContain('calculator, lookup');
    expect(request.messages[1]).toEqual({ role: 'user', content: 'Compute 12*12, then add 10' });
    expect(state.plan).toEqual({
      steps: [{ description: 'Compute 12*12', status: 'in_progress' }, { description: 'Add 10', status: 'pending' }],
      current: 0,
      results: [],
      source: 'planner',
    });
    expect(state.usage).toMatchObject({ inputTokens: 30, outputTokens: 10, cachedInputTokens: 5 });
    expect(state.messages).toHaveLength(2);
    expect(state.messages[1]!.content).toContain('Current step (1 of 2): Compute 12*12');
    expect(ctx.events.map((event) => event.type)).toEqual(['plan_created']);
    expect(ctx.events[0]!.data).toEqual({ source: 'planner', steps: state.plan!.steps });
  });

  it('reads JSON from the content (in a code fence) when the adapter gave no parsed value, and ignores planner statuses', async () => {
    const model = new ScriptedModel([{ content: '```json\n{"steps":[{"description":"one","status":"completed"},{"description":"two","status":"failed"}]}\n```' }]);
    const state = makeState();
    await plan().execute(state, makeCtx({ deps: { model } }));
    expect(state.plan!.steps).toEqual([{ description: 'one', status: 'in_progress' }, { description: 'two', status: 'pending' }]);
  });

  it('makes one repair attempt that shows the model what was wrong', async () => {
    const model = new ScriptedModel([{ content: 'Sure! Step 1: think.' }, { content: JSON.stringify(steps('think')) }]);
    const state = makeState();
    const ctx = makeCtx({ deps: { model } });
    await plan().execute(state, ctx);
    expect(state.plan!.source).toBe('repaired');
    const repair = model.requests[1]!.messages;
    expect(repair.slice(-2)).toEqual([
      { role: 'assistant', content: 'Sure! Step 1: think.' },
      { role: 'user', content: expect.stringMatching(/^That reply is not a valid plan: the reply is not JSON/) },
    ]);
    expect(ctx.events.map((event) => event.type)).toEqual(['plan_repair', 'plan_created']);
  });

  it('falls back to a one-step plan equal to the task after a failed repair, and says so', async () => {
    const tooMany = steps('a', 'b', 'c');
    const model = new ScriptedModel([{ content: JSON.stringify(tooMany) }, { content: '{"steps":[]}' }]);
    const state = makeState({ task: 'do the thing' });
    const ctx = makeCtx({ deps: { model } });
    await plan({ maxSteps: 2 }).execute(state, ctx);
    model.assertConsumed();
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(/Too big: expected array to have <=2 items/);
    expect(state.plan).toMatchObject({ source: 'fallback', steps: [{ description: 'do the thing', status: 'in_progress' }] });
    expect(ctx.events.map((event) => event.type)).toEqual(['plan_repair', 'plan_fallback', 'plan_created']);
    expect(ctx.events.find((event) => event.type === 'plan_fallback')?.data.reason).toMatch(/no valid plan after one repair attempt/);
  });

  it('counts an invalid_response error as invalid output, but lets other model errors fail the stage', async () => {
    const repaired = new ScriptedModel([new ModelError('invalid_response', 'not JSON'), { content: JSON.stringify(steps('x')) }]);
    const state = makeState();
    await plan().execute(state, makeCtx({ deps: { model: repaired } }));
    expect(state.plan!.source).toBe('repaired');

    const down = new ScriptedModel([new ModelError('connection', 'cannot reach http://127.0.0.1:9/v1: connection refused')]);
    await expect(plan().execute(makeState(), makeCtx({ deps: { model: down } }))).rejects.toThrow(/connection refused/);
  });

  it('rejects an impossible option when the pipeline is built', () => {
    expect(() => plan({ maxSteps: 0 })).toThrow(RangeError);
  });
});
