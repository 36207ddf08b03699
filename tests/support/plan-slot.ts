// A complete plan slot from the few fields a stage test cares about: ids s1, s2..., a chain of dependencies, one step at a time.
import type { PlanSlot, StepResult, StepStatus } from '../../stages/plan/plan-slot.js';

export interface PlanSketch {
  steps: Array<{ description: string; status: StepStatus }>;
  current: number;
  results?: Array<Omit<StepResult, 'id'> & { id?: string }>;
  source?: PlanSlot['source'];
  maxParallel?: number;
}

export function planSlotFor(sketch: PlanSketch): PlanSlot {
  return {
    goal: 'the task',
    steps: sketch.steps.map((step, index) => ({
      id: `s${index + 1}`,
      description: step.description,
      dependsOn: index === 0 ? [] : [`s${index}`],
      status: step.status,
      attempts: step.status === 'pending' ? 0 : 1,
    })),
    current: sketch.current,
    results: (sketch.results ?? []).map((result) => ({ ...result, id: result.id ?? `s${result.step}` })),
    source: sketch.source ?? 'planner',
    maxParallel: sketch.maxParallel ?? 1,
    running: [],
    branches: {},
    replanRequests: [],
  };
}
