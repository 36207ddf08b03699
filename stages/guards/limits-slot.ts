// The limits slot's type and event (a leaf: act and the CLI read the limits in force).
import type {} from '../../src/engine/stage.js';
import type {} from '../../src/engine/state.js';

/** The limits a run has, resolved for its model; null is a limit that is off. Shown in --json and on the root span. */
export interface LimitsInForce {
  /** Reasoning turns: the budget's, else the runner's cap. */
  maxIterations: number;
  /** Input + output tokens of the whole run. */
  maxTokens: number | null;
  maxCostUsd: number | null;
  timeoutSeconds: number | null;
  /** The Nth identical failing call is refused. */
  loopLimit: number | null;
  /** Tokens each reasoning request is pruned to. */
  contextBudget: number | null;
}

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    limits: LimitsInForce;
  }
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    limits: LimitsInForce;
  }
}
