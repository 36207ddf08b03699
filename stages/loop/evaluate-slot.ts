// The evaluate slot's type (a leaf: replan reads the latest verdict and its counters).
import type {} from '../../src/engine/state.js';

export type Verdict = 'continue' | 'retry' | 'replan' | 'stop';

export interface VerdictRecord {
  iteration: number;
  verdict: Verdict;
  reason: string;
}

export interface EvaluateSlot extends VerdictRecord {
  /** The plan step the counters belong to (null without a plan). */
  step: number | null;
  /** Retry verdicts given for this step. */
  retries: number;
  /** Consecutive turns of this step in which some tool call failed or came back empty. */
  failures: number;
  /** The step for which "too many iterations" was already reported, so it is reported once. */
  overrunStep: number | null;
  history: VerdictRecord[];
  /** Step results of this step the step judge found of no use. */
  stepRejections?: number;
  /** The step judge's finding in this turn, which this turn's verdict reports. */
  rejection?: string;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    evaluate: EvaluateSlot;
  }
}
