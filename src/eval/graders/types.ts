// What a grader sees of one run, and what it returns: a score in [0, 1] and a one-line reason.
import { shortText } from '../../common/short-text.js';
import type { JsonObject, JsonValue } from '../../common/json.js';
import type { RunStatus, StopReason } from '../../engine/state.js';

/** One tool call the run made, arguments parsed when they were JSON. */
export interface CalledTool {
  name: string;
  arguments: unknown;
}

/** A case of a dataset (src/eval/dataset.ts reads and checks them). */
export interface EvalCase {
  id: string;
  task: string;
  /** Extra JSON the run's stages may read (RunInput.options). */
  input?: JsonObject;
  /** The value the answer should give; alone, it is graded by "the answer contains it". */
  expected?: JsonValue;
  /** Graders of this case (in the dataset's JSON form), added to the eval's own. */
  graders?: GraderSpec[];
  tags?: string[];
}

/** The facts of a finished run a grader judges. */
export interface GradeSubject {
  case: EvalCase;
  /** The final answer text ('' when the run gave none). */
  answer: string;
  /** The validated structured output when the run had an output schema, else the answer parsed as JSON when it is JSON. */
  output?: unknown;
  toolCalls: CalledTool[];
  status: RunStatus;
  stopReason: StopReason;
  tokens: { input: number; output: number; total: number };
  latencyMs: number;
}

export interface Grade {
  /** 0 (fails) to 1 (meets it fully). */
  score: number;
  reason: string;
}

export interface GradeContext {
  signal?: AbortSignal;
}

export interface Grader {
  readonly name: string;
  /** A score at or above it passes (default 1). */
  readonly threshold?: number;
  grade(subject: GradeSubject, context: GradeContext): Grade | Promise<Grade>;
}

/** The JSON form of a grader in a dataset line: `{ "type": "regex", "pattern": "^\\d+$" }`. */
export type GraderSpec =
  | { type: 'contains'; value?: JsonValue; threshold?: number }
  | { type: 'exact'; value?: string; threshold?: number }
  | { type: 'normalized'; value?: string; threshold?: number }
  | { type: 'regex'; pattern: string; flags?: string; threshold?: number }
  | { type: 'number'; value?: number; tolerance?: number; relative?: boolean; threshold?: number }
  | { type: 'json-schema'; schema: JsonObject; threshold?: number }
  | { type: 'json-subset'; value?: JsonValue; threshold?: number }
  | { type: 'tool-called'; name: string; arguments?: JsonObject; times?: number; threshold?: number }
  | { type: 'tool-not-called'; name?: string; threshold?: number }
  | { type: 'stop-reason'; kind: string | string[]; threshold?: number }
  | { type: 'max-tokens'; value: number; threshold?: number }
  | { type: 'max-time'; ms: number; threshold?: number }
  | { type: 'judge'; rubric: string; threshold?: number };

/** A grade that passed or failed, kept in results. */
export interface GradeRecord extends Grade {
  grader: string;
  pass: boolean;
}

export const clampScore = (score: number): number => (Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0);

export const passes = (grader: Pick<Grader, 'threshold'>, grade: Grade): boolean =>
  grade.score >= (grader.threshold ?? 1);

/** A short, one-line view of a value for reasons. */
export function preview(value: unknown, limit = 80): string {
  return shortText(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)), limit);
}
