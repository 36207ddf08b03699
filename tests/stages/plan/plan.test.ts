import { describe, expect, it } from 'vitest';
import { plan } from '../../../stages/plan/plan.js';
import { ModelError } from '../../../src/model/types.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';

const usage = { inputTokens: 30, outputTokens: 10, cachedInputTokens: 5, reasoningTokens: 0, estimated: false };
const steps = (...descriptions: string[]) => ({
  steps: descriptions.map((description) => ({ description, status: 'pending' })),
});

describe('plan stage', () => {
  it('asks the planner for the graph shape in the prompt and starts the first ready step with a rendered brief', async () => {
    const model = new ScriptedModel([
      { content: JSON.stringify(steps('Compute 12*12', 'Add 10')), parsed: steps('Compute 12*12', 'Add 10'), usage },
    ]);
    const state = makeState({ task: 'Compute 12*12, then add 10' });
    const ctx = makeCtx({ deps: { model, tools: testTools() }, zone: 'setup' });
    expect(await plan().execute(state, ctx)).toBeUndefined();

    const request = model.requests[0]!;
    expect(request.purpose).toBe('plan');
    // No response format: the adapter would validate it strictly; the plan stage reads messy replies itself.
    expect(request.responseFormat).toBeUndefined();
    expect(request.messages[0]!.content).toContain('"dependsOn"');
    expect(request.messages[0]!.content).toContain('between 1 and 8 steps');
    expect(request.messages[0]!.content).toContain('calculator, lookup');
    expect(request.messages[1]).toEqual({ role: 'user', content: 'Compute 12*12, then add 10' });
    expect(state.plan).toEqual({
      goal: 'Compute 12*12, then add 10',
      steps: [
        { id: 's1', description: 'Compute 12*12', dependsOn: [], status: 'in_progress', attempts: 1 },
        { id: 's2', description: 'Add 10', dependsOn: ['s1'], status: 'pending', attempts: 0 },
      ],
      current: 0,
      results: [],
      source: 'planner',
      maxParallel: 3,
      running: ['s1'],
      branches: { s1: expect.objectContaining({ turn: { toolCalls: [], results: [] } }) },
      replanRequests: [],
    });
    expect(state.usage).toMatchObject({ inputTokens: 30, outputTokens: 10, cachedInputTokens: 5 });
    const brief = state.plan!.branches.s1!.messages;
    expect(brief).toHaveLength(2);
    expect(brief[1]!.content).toContain('Current step (1 of 2): Compute 12*12');
    expect(ctx.events.map((event) => event.type)).toEqual(['plan_created', 'step_started', 'plan_updated']);
    expect(ctx.events[0]!.data).toMatchObject({
      source: 'planner',
      maxParallel: 3,
      steps: [
        { id: 's1', status: 'pending' },
        { id: 's2', dependsOn: ['s1'] },
      ],
    });
  });

  it('reads JSON from the content (in a code fence) when the adapter gave no parsed value, and ignores planner statuses', async () => {
    const model = new ScriptedModel([
      {
        content:
          '```json\n{"steps":[{"description":"one","status":"completed"},{"description":"two","status":"failed"}]}\n```',
      },
    ]);
    const state = makeState();
    await plan({ maxParallelSteps: 1 }).execute(state, makeCtx({ deps: { model } }));
    expect(state.plan!.steps.map((step) => [step.id, step.description, step.status, step.dependsOn])).toEqual([
      ['s1', 'one', 'in_progress', []],
      ['s2', 'two', 'pending', ['s1']],
    ]);
    expect(state.messages[1]!.content).toContain('Current step (1 of 2): one');
  });

  it('makes a repair turn that shows the model what was wrong', async () => {
    const model = new ScriptedModel([{ content: 'Sure! Step 1: think.' }, { content: JSON.stringify(steps('think')) }]);
    const state = makeState();
    const ctx = makeCtx({ deps: { model } });
    await plan().execute(state, ctx);
    expect(state.plan!.source).toBe('repaired');
    const repair = model.requests[1]!.messages;
    expect(repair.slice(-2)).toEqual([
      { role: 'assistant', content: 'Sure! Step 1: think.' },
      {
        role: 'user',
        content: expect.stringMatching(/^That reply could not be used: the reply holds no JSON object or list/),
      },
    ]);
    expect(ctx.events.map((event) => event.type)).toEqual([
      'plan_repair',
      'plan_created',
      'step_started',
      'plan_updated',
    ]);
  });

  it('falls back to a one-step plan equal to the task after two failed repairs, and says so', async () => {
    const tooMany = steps('a', 'b', 'c');
    const model = new ScriptedModel([
      { content: JSON.stringify(tooMany) },
      { content: '{"steps":[]}' },
      { content: 'no' },
    ]);
    const state = makeState({ task: 'do the thing' });
    const ctx = makeCtx({ deps: { model } });
    await plan({ maxSteps: 2 }).execute(state, ctx);
    model.assertConsumed();
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(/the plan has 3 steps: use at most 2/);
    expect(model.requests[2]!.messages.at(-1)!.content).toMatch(/the plan has no steps/);
    expect(state.plan).toMatchObject({
      source: 'fallback',
      steps: [{ description: 'do the thing', status: 'in_progress' }],
    });
    expect(ctx.events.map((event) => event.type)).toEqual([
      'plan_repair',
      'plan_repair',
      'plan_fallback',
      'plan_created',
      'step_started',
      'plan_updated',
    ]);
    expect(ctx.events.find((event) => event.type === 'plan_fallback')?.data.reason).toMatch(
      /no valid plan after 2 repair turns/,
    );
  });

  it('counts an invalid_response error as invalid output, but lets other model errors fail the stage', async () => {
    const repaired = new ScriptedModel([
      new ModelError('invalid_response', 'not JSON'),
      { content: JSON.stringify(steps('x')) },
    ]);
    const state = makeState();
    await plan().execute(state, makeCtx({ deps: { model: repaired } }));
    expect(state.plan!.source).toBe('repaired');

    const down = new ScriptedModel([
      new ModelError('connection', 'cannot reach http://127.0.0.1:9/v1: connection refused'),
    ]);
    await expect(plan().execute(makeState(), makeCtx({ deps: { model: down } }))).rejects.toThrow(/connection refused/);
  });

  it('rejects an impossible option when the pipeline is built', () => {
    expect(() => plan({ maxSteps: 0 })).toThrow(RangeError);
  });
});
