// The plan slot's types (a leaf: plan, plan-steps, prompts, replan and summarize import it; it imports no stage).
import type {} from '../src/engine/state.js';

export const stepStatuses = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type StepStatus = (typeof stepStatuses)[number];

export interface PlanStep {
  description: string;
  status: StepStatus;
}

/** What a finished step produced; only this enters the run-wide history, never the step's tool traffic. */
export interface StepResult {
  /** 1-based step number. */
  step: number;
  description: string;
  /** `partial`: the step ran out of tool rounds and reports what it had. */
  outcome: 'completed' | 'partial' | 'failed';
  output: string;
}

export interface PlanSlot {
  steps: PlanStep[];
  /** Index of the step being worked on; equals steps.length once every step is done. */
  current: number;
  results: StepResult[];
  /** Where the plan came from: the planner's first answer, its repaired answer, or the one-step fallback. */
  source: 'planner' | 'repaired' | 'fallback';
}

declare module '../src/engine/state.js' {
  interface StageSlots {
    plan: PlanSlot;
  }
}
