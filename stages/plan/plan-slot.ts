// The plan slot's types (a leaf: plan, plan-steps, prompts, replan and summarize import it; it imports no stage), and
// the call-id suffix a plan step's branch gives its stages (think applies it).
import type { Turn, TurnDirectives } from '../../src/engine/state.js';
import type { ChatMessage } from '../../src/model/types.js';

export const stepStatuses = ['pending', 'in_progress', 'completed', 'failed', 'blocked', 'replaced'] as const;
/**
 * `blocked`: a step it depends on failed (or is blocked), so it cannot run unless the replanner rewrites it.
 * `replaced`: it failed and an applied replan answered the failure with the plan that followed; it no longer counts
 * against the goal (the steps that replaced it do).
 */
export type StepStatus = (typeof stepStatuses)[number];

export interface PlanStep {
  /** Unique within the plan; the planner's own id, or s1, s2... when it gave none. */
  id: string;
  description: string;
  /** Ids of the steps whose results this step needs; it is ready once they have all completed. */
  dependsOn: string[];
  /** The tool this step is bound to: offered first (the others stay available). */
  tool?: string;
  /** Orders the ready steps: 1 runs first; steps without one follow, in the planner's order. */
  priority?: number;
  status: StepStatus;
  /** The step's result text once it ended. */
  result?: string;
  /** How many times the step was started (a retry after a failure starts it again). */
  attempts: number;
  /**
   * The step whose sub-plan this step belongs to; absent at the run's own plan. A step with sub-steps runs no model
   * call itself: it starts when its dependencies are done, and ends when its sub-plan is over.
   */
  parent?: string;
}

/** How deep plans nest: the run's plan (1), a step's sub-plan (2), a sub-step's sub-plan (3). */
export const maxPlanDepth = 3;

/** What a finished step produced; only this enters the run-wide history, never the step's tool traffic. */
export interface StepResult {
  /** 1-based position of the step in the plan. */
  step: number;
  id: string;
  description: string;
  /** `partial`: the step ran out of tool rounds and reports what it had. */
  outcome: 'completed' | 'partial' | 'failed';
  output: string;
}

/** One running step's own working memory while steps run side by side: its conversation, turn and stage slots. */
export interface StepBranch {
  messages: ChatMessage[];
  turn: Turn;
  nextTurn: TurnDirectives;
  /** The slots the iteration stages wrote while working on this step (think, act, observe, evaluate...). */
  slots: Record<string, unknown>;
}

export interface PlanSlot {
  goal: string;
  reasoning?: string;
  steps: PlanStep[];
  /** Index of the step being worked on (the first running one); equals steps.length once every step has ended. */
  current: number;
  results: StepResult[];
  /** Where the plan came from: the planner's first answer, its repaired answer, or the one-step fallback. */
  source: 'planner' | 'repaired' | 'fallback';
  /** Steps that may run at once; 1 runs them one after another in the run's own state. */
  maxParallel: number;
  /** With maxParallel above 1: the running steps' ids in start order, and each one's working memory. */
  running: string[];
  branches: Record<string, StepBranch>;
  /** The model's requests for a new plan (the `replan` tool), until the replanner is asked. */
  replanRequests: Array<{ id: string; reason: string }>;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    plan: PlanSlot;
  }
}

declare module '../../src/engine/stage.js' {
  interface Deps {
    /** Set by the plan branch for a step running beside others: think appends it to the ids of the step's calls. */
    callIdSuffix?: string;
  }
}
