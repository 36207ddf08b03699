// The eval's result shapes: one graded run, the case × variant entry, and the summary per variant.
import type { CalledTool, GradeRecord } from './graders/types.js';

/** One run of one case by one variant (one repeat), graded. */
export interface CaseRun {
  id: string;
  variant: string;
  /** 0-based repeat number. */
  repeat: number;
  /** The recorded run (`stageloop show RUN`, `stageloop replay RUN`). */
  runId: string;
  pass: boolean;
  /** Mean of the grader scores, 0 to 1. */
  score: number;
  grades: GradeRecord[];
  answer: string;
  status: string;
  stopReason: string;
  tokens: { input: number; output: number; total: number };
  costUsd: number;
  latencyMs: number;
  toolCalls: CalledTool[];
}

/** A case × variant: passes when every repeat passed. */
export interface CaseResult {
  id: string;
  variant: string;
  pass: boolean;
  score: number;
  runs: CaseRun[];
}

export interface VariantSummary {
  variant: string;
  cases: number;
  passed: number;
  /** Passed cases / cases, 0 to 1. */
  passRate: number;
  meanScore: number;
  tokens: { total: number; meanPerRun: number };
  costUsd: number;
  latencyMs: { p50: number; p95: number };
  /** How many runs stopped for each reason. */
  stopReasons: Record<string, number>;
}

/** A case some variants pass and others fail. */
export interface Disagreement {
  id: string;
  pass: Record<string, boolean>;
}

export interface EvalResult {
  evalId: string;
  dataset: string;
  /** False when the eval was interrupted: the results hold only finished cases. */
  complete: boolean;
  results: CaseResult[];
  summary: VariantSummary[];
  disagreements: Disagreement[];
}

export const runKey = (run: Pick<CaseRun, 'id' | 'variant' | 'repeat'>): string =>
  JSON.stringify([run.id, run.variant, run.repeat]);
