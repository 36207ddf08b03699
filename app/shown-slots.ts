// The state slots a run's page shows (console, `stageloop show --html`, eval reports): the plan-execute-replan
// stages own them; the server is told this list instead of naming stages itself. A small file: no stage is loaded.
import type { StageSlots } from '../src/engine/state.js';

export const shownSlots = Object.freeze([
  'plan',
  'evaluate',
  'replan',
] as const) satisfies readonly (keyof StageSlots)[];
