// endOverSubPlans and replanScope: a step's sub-plan ending (deepest first, its result the sub-steps' results) and
// the plan level a replan rewrites.
import { describe, expect, it } from 'vitest';
import type { StageContext } from '../../../src/engine/stage.js';
import type { PlanStep } from '../../../stages/plan/plan-slot.js';
import { endOverSubPlans, replanScope } from '../../../stages/plan/plan-subplans.js';
import { newPlan } from '../../../stages/shared/plan-steps.js';

const step = (id: string, status: PlanStep['status'], parent?: string, result?: string): PlanStep => ({
  id,
  description: `do ${id}`,
  dependsOn: [],
  status,
  attempts: status === 'pending' ? 0 : 1,
  ...(parent === undefined ? {} : { parent }),
  ...(result === undefined ? {} : { result }),
});

function context(events: Array<{ type: string; data: unknown }>): StageContext {
  return { emit: (type: string, data: unknown) => events.push({ type, data }) } as unknown as StageContext;
}

describe('sub-plans ending', () => {
  it('ends nested sub-plans deepest first: the inner step, then its parent, each with its sub-steps’ results', () => {
    const plan = newPlan(
      'g',
      [
        step('a', 'in_progress'),
        step('a.b', 'in_progress', 'a'),
        step('a.b.c', 'completed', 'a.b', 'C'),
        step('a.d', 'completed', 'a', 'D'),
      ],
      'planner',
      3,
    );
    const events: Array<{ type: string; data: unknown }> = [];
    expect(endOverSubPlans(plan, context(events))).toEqual([1, 0]);
    expect(plan.steps.map((known) => [known.id, known.status, known.result ?? null])).toEqual([
      ['a', 'completed', 'a.b: a.b.c: C\na.d: D'],
      ['a.b', 'completed', 'a.b.c: C'],
      ['a.b.c', 'completed', 'C'],
      ['a.d', 'completed', 'D'],
    ]);
    expect(events.filter((event) => event.type === 'step_finished').map((event) => event.data)).toMatchObject([
      { id: 'a.b', outcome: 'completed', parent: 'a' },
      { id: 'a', outcome: 'completed' },
    ]);
  });

  it('leaves a sub-plan with a step running or ready; fails one with a blocked sub-step, replaced ones not counted', () => {
    const running = newPlan('g', [step('a', 'in_progress'), step('a.x', 'pending', 'a')], 'planner', 3);
    expect(endOverSubPlans(running, context([]))).toEqual([]);
    const blocked = newPlan(
      'g',
      [step('a', 'in_progress'), step('a.x', 'replaced', 'a'), step('a.y', 'blocked', 'a')],
      'planner',
      3,
    );
    expect(endOverSubPlans(blocked, context([]))).toEqual([0]);
    expect(blocked.steps[0]).toMatchObject({ status: 'failed', result: 'a.y: (blocked)' });
  });

  it('replans inside the sub-plan of the shallowest failed step, or the run’s own plan when none failed', () => {
    const plan = newPlan(
      'g',
      [step('a', 'in_progress'), step('a.b', 'failed', 'a'), step('a.b.c', 'failed', 'a.b'), step('d', 'completed')],
      'planner',
      3,
    );
    expect(replanScope(plan, [2, 1])).toBe('a');
    expect(replanScope(plan, [3])).toBeUndefined();
  });
});
