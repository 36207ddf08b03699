// The matrix row of a plan step with a sub-plan: its sub-steps run side by side, pause together, and a kill lands
// inside the sub-plan (the scripted planner nests when the task asks for sub-steps).
import type { Outcome, Row } from './matrix-harness.js';

export function subPlanRows(expected: Outcome): Array<Row & { expected: Outcome }> {
  return [
    {
      name: 'sub-plan',
      flags: () => ['--pipeline', 'plan-execute-replan'],
      task: 'In sub-steps: what is 12 * 7?',
      waits: 2,
      expected,
    },
  ];
}
