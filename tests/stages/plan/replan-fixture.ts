// The plan the replan tests start from, shared by replan.test.ts and replan-ask.test.ts.
import type { PlanSlot } from '../../../stages/plan/plan.js';
import type { RunState } from '../../../src/engine/state.js';
import { planSlotFor } from '../../support/plan-slot.js';

export const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };

/** A three-step plan whose first step just ended. */
export function afterFirstStep(state: RunState): PlanSlot {
  state.plan = planSlotFor({
    steps: [
      { description: 'Compute 12*12', status: 'completed' },
      { description: 'Add 10', status: 'pending' },
      { description: 'Divide by 2', status: 'pending' },
    ],
    current: 0,
    results: [{ step: 1, description: 'Compute 12*12', outcome: 'completed', output: '144' }],
    source: 'planner',
  });
  state.iteration = 2;
  return state.plan;
}
