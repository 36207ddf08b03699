// The plan slot: the step statuses a plan knows, and a slot of plain JSON (a recorded run stores it as is).
import { describe, expect, it } from 'vitest';
import { stepStatuses, type PlanSlot } from '../../../stages/plan/plan-slot.js';
import { planSlotFor } from '../../support/plan-slot.js';

describe('the plan slot', () => {
  it('names six step statuses, blocked and replaced among them', () => {
    expect(stepStatuses).toEqual(['pending', 'in_progress', 'completed', 'failed', 'blocked', 'replaced']);
  });

  it('a slot with branches and replan requests is plain JSON', () => {
    const slot: PlanSlot = planSlotFor({
      steps: [
        { description: 'a', status: 'in_progress' },
        { description: 'b', status: 'pending' },
      ],
      current: 0,
      maxParallel: 2,
    });
    slot.running = ['s1'];
    slot.branches.s1 = {
      messages: [{ role: 'user', content: 'step a' }],
      turn: { toolCalls: [], results: [] },
      nextTurn: { notes: [], withoutTools: false },
      slots: { think: { calls: 1 } },
    };
    slot.replanRequests.push({ id: 's1', reason: 'the data moved' });
    expect(JSON.parse(JSON.stringify(slot))).toEqual(slot);
  });
});
