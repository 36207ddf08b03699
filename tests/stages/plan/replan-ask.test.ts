// The replanner's question and the reading of its reply (stages/plan/replan-ask.ts), through the replan stage.
import { describe, expect, it } from 'vitest';
import { replan, replanSchema } from '../../../stages/plan/replan.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { afterFirstStep, keep } from './replan-fixture.js';

describe("the replanner's question and reply", () => {
  it('reads a messy reply (prose, a fence, trailing commas) and graph steps that depend on finished ones', async () => {
    const reply =
      'I think so.\n```json\n{"need_replan": true, "reason": "split it", "new_steps": [{"id": "x", "description": "Add 10", "dependsOn": ["s1"]}, {"id": "y", "description": "Halve", "dependsOn": ["x"],},],}\n```';
    const model = new ScriptedModel([{ content: reply }]);
    const state = makeState();
    const plan = afterFirstStep(state);
    await replan().execute(state, makeCtx({ deps: { model } }));
    expect(plan.steps.map((step) => [step.id, step.status, step.dependsOn])).toEqual([
      ['s1', 'completed', []],
      ['x', 'in_progress', ['s1']],
      ['y', 'pending', ['x']],
    ]);
  });

  it("the replanner sees the run's facts and the session history", async () => {
    const model = new ScriptedModel([keep]);
    const state = makeState();
    afterFirstStep(state);
    state.context = { systemPrompt: 'sys', tools: [], facts: ['prefer exact fractions'] };
    state.history = {
      user: 'default',
      session: 's',
      summary: 'earlier the user asked about 12*12',
      turns: [],
      facts: [],
    };
    await replan().execute(state, makeCtx({ deps: { model } }));
    const brief = model.requests[0]!.messages[1]!.content;
    expect(brief).toContain('What the agent already knows');
    expect(brief).toContain('- prefer exact fractions');
    expect(brief).toContain('earlier the user asked about 12*12');
  });

  it('a replan whose new steps form a cycle gets a repair turn naming it', async () => {
    const cycle =
      '{"need_replan": true, "reason": "r", "new_steps": [{"id": "a", "description": "x", "dependsOn": ["b"]}, {"id": "b", "description": "y", "dependsOn": ["a"]}]}';
    const model = new ScriptedModel([
      { content: cycle },
      { content: '{"need_replan": true, "reason": "r", "new_steps": ["x"]}' },
    ]);
    const state = makeState();
    const plan = afterFirstStep(state);
    await replan().execute(state, makeCtx({ deps: { model } }));
    model.assertConsumed();
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('steps a and b form a cycle');
    expect(plan.steps.map((step) => step.description)).toEqual(['Compute 12*12', 'x']);
  });

  it('keeps the plan when the replanner reply is still not valid after two repair turns', async () => {
    const model = new ScriptedModel([
      { content: 'maybe?' },
      { content: '{"need_replan": "perhaps"}' },
      { content: 'no' },
    ]);
    const state = makeState();
    const plan = afterFirstStep(state);
    const ctx = makeCtx({ deps: { model } });
    await replan().execute(state, ctx);
    model.assertConsumed();
    expect(model.requests[2]!.messages.at(-1)!.content).toContain('"need_replan" must be true or false');
    expect(ctx.events.filter((event) => event.type === 'plan_repair')).toHaveLength(2);
    expect(plan.steps).toHaveLength(3);
    expect(state.replan!.decisions[0]).toMatchObject({
      applied: false,
      reason: expect.stringMatching(/not valid .*keeping the plan/),
    });
  });

  it('replanSchema describes the reply: a flag, a reason and the new steps as text or graph steps', () => {
    expect(replanSchema.parse(JSON.parse(keep.content))).toEqual({
      need_replan: false,
      reason: 'on track',
      new_steps: [],
    });
    expect(
      replanSchema.safeParse({
        need_replan: true,
        reason: 'r',
        new_steps: ['a', { description: 'b', dependsOn: ['a'] }],
      }).success,
    ).toBe(true);
    expect(replanSchema.safeParse({ need_replan: 'perhaps', reason: 'r', new_steps: [] }).success).toBe(false);
  });
});
