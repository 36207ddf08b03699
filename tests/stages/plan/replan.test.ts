import { describe, expect, it } from 'vitest';
import { replan } from '../../../stages/plan/replan.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { afterFirstStep, keep } from './replan-fixture.js';

describe('replan stage', () => {
  it('does nothing without a plan, or while the current step is still running', async () => {
    const model = new ScriptedModel([]);
    expect(await replan().execute(makeState(), makeCtx({ deps: { model } }))).toBeUndefined();
    const state = makeState();
    afterFirstStep(state).steps[0]!.status = 'in_progress';
    expect(await replan().execute(state, makeCtx({ deps: { model } }))).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it('after a step ends, asks the replanner and moves to the next step with a freshly rendered brief', async () => {
    const model = new ScriptedModel([keep]);
    const state = makeState({
      task: 'Compute 12*12, then add 10, then divide by 2',
      messages: [{ role: 'user', content: 'old step traffic' }],
    });
    const plan = afterFirstStep(state);
    const ctx = makeCtx({ deps: { model } });
    expect(await replan().execute(state, ctx)).toBeUndefined();

    const request = model.requests[0]!;
    expect(request.purpose).toBe('replan');
    expect(request.messages[0]!.content).toMatch(/need_replan.*reason.*new_steps/);
    expect(request.messages[1]!.content).toContain('The step that just ended: step 1 (completed)');
    expect(request.messages[1]!.content).toContain('Remaining steps: s2 [pending]: Add 10 | s3 [pending]: Divide by 2');
    expect(plan.current).toBe(1);
    expect(plan.steps.map((step) => step.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(state.messages).toHaveLength(2);
    expect(state.messages[1]!.content).toContain('Current step (2 of 3): Add 10');
    expect(state.messages[1]!.content).toContain('Result: 144');
    expect(state.replan).toEqual({
      count: 0,
      decisions: [{ afterStep: 1, ended: ['s1'], needReplan: false, applied: false, reason: 'on track' }],
    });
    expect(ctx.events.map((event) => event.type)).toEqual(['replan_decision', 'step_started', 'plan_updated']);
  });

  it('replaces only the steps after the one that ended; completed steps are never rewritten', async () => {
    const model = new ScriptedModel([
      {
        parsed: {
          need_replan: true,
          reason: 'the result needs checking first',
          new_steps: ['Check 144', ' ', 'Add 10 and halve'],
        },
      },
    ]);
    const state = makeState();
    const plan = afterFirstStep(state);
    const ctx = makeCtx({ deps: { model } });
    await replan().execute(state, ctx);
    expect(plan.steps.map((step) => [step.id, step.description, step.status, step.dependsOn])).toEqual([
      ['s1', 'Compute 12*12', 'completed', []],
      ['r1s1', 'Check 144', 'in_progress', ['s1']],
      ['r1s2', 'Add 10 and halve', 'pending', ['r1s1']],
    ]);
    expect(plan.results).toHaveLength(1);
    expect(state.replan!.count).toBe(1);
    expect(ctx.events[0]!.data).toMatchObject({
      applied: true,
      reason: 'the result needs checking first',
      newSteps: ['Check 144', 'Add 10 and halve'],
    });
  });

  it('stops asking once the replan cap is reached and keeps the plan', async () => {
    const model = new ScriptedModel([]);
    const state = makeState();
    const plan = afterFirstStep(state);
    state.replan = { count: 1, decisions: [] };
    await replan({ maxReplans: 1 }).execute(state, makeCtx({ deps: { model } }));
    expect(model.requests).toHaveLength(0);
    expect(plan.current).toBe(1);
    expect(state.replan.decisions[0]!.reason).toMatch(/replan cap of 1 is reached/);
  });

  it('on a replan verdict ends the failing step as failed and consults the replanner', async () => {
    const model = new ScriptedModel([
      { content: '{"need_replan":true,"reason":"try another way","new_steps":["Estimate instead"]}' },
    ]);
    const state = makeState();
    const plan = afterFirstStep(state);
    plan.steps[0]!.status = 'in_progress';
    plan.results = [];
    state.observe = {
      step: 0,
      results: [{ tool: 'calculator', arguments: '{}', ok: false, content: 'Error (timeout): slow' }],
    };
    state.evaluate = {
      iteration: 2,
      verdict: 'replan',
      reason: 'step 1 keeps failing',
      step: 0,
      retries: 2,
      failures: 3,
      overrunStep: null,
      history: [],
    };
    await replan().execute(state, makeCtx({ deps: { model } }));
    expect(plan.results[0]).toMatchObject({
      step: 1,
      outcome: 'failed',
      output: expect.stringMatching(
        /^Abandoned: step 1 keeps failing\. Latest tool results: calculator: Error \(timeout\): slow/,
      ),
    });
    expect(plan.steps.map((step) => [step.description, step.status])).toEqual([
      // The replan answered the failure: it no longer counts against the goal.
      ['Compute 12*12', 'replaced'],
      ['Estimate instead', 'in_progress'],
    ]);
  });

  it('ends the loop as completed when the last step is done', async () => {
    const model = new ScriptedModel([keep]);
    const state = makeState();
    const plan = afterFirstStep(state);
    plan.steps = [plan.steps[0]!];
    const ctx = makeCtx({ deps: { model } });
    expect(await replan().execute(state, ctx)).toMatchObject({ type: 'break_loop', kind: 'completed' });
    expect(plan.current).toBe(1);
    expect(ctx.events.at(-1)!.data).toMatchObject({ current: null, reason: 'no step is left to run' });
  });
});
