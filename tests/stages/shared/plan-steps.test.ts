import { describe, expect, it } from 'vitest';
import {
  activeStep,
  blockDependants,
  dependencyClosure,
  finishStep,
  planIsOver,
  planView,
  readySteps,
  replaceUnstarted,
  runningIds,
  startStep,
} from '../../../stages/shared/plan-steps.js';
import type { PlanSlot, PlanStep } from '../../../stages/plan/plan-slot.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const step = (id: string, dependsOn: string[] = [], extra: Partial<PlanStep> = {}): PlanStep => ({
  id,
  description: `do ${id}`,
  dependsOn,
  status: 'pending',
  attempts: 0,
  ...extra,
});
const planOf = (...steps: PlanStep[]): PlanSlot => ({ ...planSlotFor({ steps: [], current: 0 }), steps });

describe('plan steps', () => {
  it('ready steps: pending with every dependency completed, by priority then plan order', () => {
    const plan = planOf(
      step('a', [], { status: 'completed' }),
      step('b', ['a']),
      step('c', [], { priority: 1 }),
      step('d', ['b']),
      step('e', [], { priority: 2 }),
    );
    expect(readySteps(plan)).toEqual([2, 4, 1]);
  });

  it('starting and finishing a step: status, attempts, the result kept, and the events', () => {
    const state = makeState({ plan: planOf(step('a'), step('b', ['a'])) });
    const ctx = makeCtx();
    startStep(state.plan!, ctx, 0);
    expect(activeStep(state)).toBe(0);
    expect(runningIds(state.plan!)).toEqual(['a']);
    finishStep(state, ctx, 'partial', 'about 144');
    expect(state.plan!.steps[0]).toMatchObject({ status: 'completed', attempts: 1, result: 'about 144' });
    expect(state.plan!.results).toEqual([
      { step: 1, id: 'a', description: 'do a', outcome: 'partial', output: 'about 144' },
    ]);
    expect(ctx.events.map((event) => event.type)).toEqual(['step_started', 'step_finished', 'plan_updated']);
    expect(activeStep(state)).toBeNull();
    expect(activeStep(makeState())).toBeNull();
  });

  it('a failed step blocks everything that needs it, through other steps too', () => {
    const plan = planOf(step('a', [], { status: 'failed' }), step('b', ['a']), step('c', ['b']), step('d'));
    expect(blockDependants(plan)).toEqual(['b', 'c']);
    expect(plan.steps.map((each) => each.status)).toEqual(['failed', 'blocked', 'blocked', 'pending']);
    expect(planIsOver(plan)).toBe(false);
    plan.steps[3]!.status = 'completed';
    expect(planIsOver(plan)).toBe(true);
  });

  it('replanning replaces only the steps that have not started', () => {
    const plan = planOf(
      step('a', [], { status: 'completed' }),
      step('b', [], { status: 'in_progress' }),
      step('c', ['a']),
      step('d', [], { status: 'blocked' }),
    );
    replaceUnstarted(plan, [step('x', ['a'])]);
    expect(plan.steps.map((each) => each.id)).toEqual(['a', 'b', 'x']);
  });

  it('the dependency closure follows dependencies of dependencies; the view is a copy', () => {
    const plan = planOf(
      step('a'),
      step('b', ['a']),
      step('c'),
      step('d', ['b', 'c'], { tool: 'calculator', priority: 1 }),
    );
    expect([...dependencyClosure(plan, 3)].sort()).toEqual(['a', 'b', 'c']);
    const view = planView(plan);
    expect(view[3]).toEqual({
      id: 'd',
      description: 'do d',
      dependsOn: ['b', 'c'],
      tool: 'calculator',
      priority: 1,
      status: 'pending',
    });
    plan.steps[3]!.dependsOn.push('a');
    expect(view[3]!.dependsOn).toEqual(['b', 'c']);
  });
});
