// startReadySteps(): one step at a time in the run's own state (a fresh brief at each step boundary), or up to
// maxParallel ready steps side by side, each with a branch of its own; currentIndex() names the first running step.
import { describe, expect, it } from 'vitest';
import { currentIndex, startReadySteps } from '../../../stages/plan/plan-schedule.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const pending = (description: string) => ({ description, status: 'pending' as const });

describe('startReadySteps', () => {
  it('one at a time: starts the next ready step, resets the turn and renders a fresh brief', () => {
    const plan = planSlotFor({
      steps: [{ description: 'look up', status: 'completed' }, pending('add up')],
      current: 0,
    });
    const state = makeState({
      plan,
      messages: [{ role: 'user', content: 'stale tool traffic' }],
      turn: { toolCalls: [{ id: 'c1', name: 'x', arguments: '{}' }], results: [] },
    });
    const ctx = makeCtx();
    expect(startReadySteps(state, ctx)).toEqual([1]);
    expect(plan).toMatchObject({ current: 1, running: [] });
    expect(plan.steps[1]).toMatchObject({ status: 'in_progress', attempts: 1 });
    expect(state.turn).toEqual({ toolCalls: [], results: [] });
    expect(state.messages.map((message) => message.content).join('\n')).not.toContain('stale tool traffic');
    expect(ctx.events.map((event) => event.type)).toEqual(['step_started']);
  });

  it('one at a time: starts nothing while a step runs, and points past the end once none is left', () => {
    const running = planSlotFor({ steps: [{ description: 'a', status: 'in_progress' }, pending('b')], current: 0 });
    expect(startReadySteps(makeState({ plan: running }), makeCtx())).toEqual([]);
    expect(running.steps[1]!.status).toBe('pending');
    const done = planSlotFor({ steps: [{ description: 'a', status: 'completed' }], current: 0 });
    expect(startReadySteps(makeState({ plan: done }), makeCtx())).toEqual([]);
    expect(done.current).toBe(1);
  });

  it('blocks the dependants of a failed step before choosing', () => {
    const plan = planSlotFor({
      steps: [{ description: 'a', status: 'failed' }, pending('b'), pending('c')],
      current: 0,
    });
    expect(startReadySteps(makeState({ plan }), makeCtx())).toEqual([]);
    expect(plan.steps.map((step) => step.status)).toEqual(['failed', 'blocked', 'blocked']);
  });

  it('side by side: starts ready steps up to maxParallel, each in a branch of its own, the run state untouched', () => {
    const plan = planSlotFor({ steps: [pending('a'), pending('b'), pending('c')], current: 0, maxParallel: 2 });
    for (const step of plan.steps) step.dependsOn = [];
    const messages = [{ role: 'user' as const, content: "the run's own conversation" }];
    const state = makeState({ plan, messages });
    expect(startReadySteps(state, makeCtx())).toEqual([0, 1]);
    expect(plan.running).toEqual(['s1', 's2']);
    expect(Object.keys(plan.branches)).toEqual(['s1', 's2']);
    expect(plan.branches.s1).toMatchObject({
      turn: { toolCalls: [], results: [] },
      nextTurn: { notes: [], withoutTools: false },
      slots: {},
    });
    expect(plan.branches.s1!.messages).not.toEqual(plan.branches.s2!.messages);
    expect(state.messages).toBe(messages);
    expect(plan.current).toBe(0);
    // Full: nothing more starts until a running step ends.
    expect(startReadySteps(state, makeCtx())).toEqual([]);
    plan.steps[0]!.status = 'completed';
    plan.running = ['s2'];
    expect(startReadySteps(state, makeCtx())).toEqual([2]);
    expect(plan.running).toEqual(['s2', 's3']);
    expect(plan.current).toBe(1);
  });
});

describe('currentIndex', () => {
  it("is the first running step, else the plan's length", () => {
    const plan = planSlotFor({ steps: [pending('a'), pending('b')], current: 0, maxParallel: 2 });
    expect(currentIndex(plan)).toBe(2);
    plan.running = ['s2', 's1'];
    expect(currentIndex(plan)).toBe(1);
  });
});
