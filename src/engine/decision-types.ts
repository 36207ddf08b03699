// What a person decides during a run, as data: the requests the ports ask and the answers they take (journaled as is).
import type { JsonObject } from '../common/json.js';

/** A tool call waiting for a person. */
export interface ApprovalRequest {
  id: string;
  tool: string;
  /** The call's arguments as an object (`{}` when the model's text is not a JSON object: `argumentsJson` has it). */
  arguments: JsonObject;
  /** The JSON text the model sent. */
  argumentsJson: string;
  reason: string;
}

/** The request for a call whose arguments are this JSON text. */
export function approvalRequest(id: string, tool: string, argumentsJson: string, reason: string): ApprovalRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    parsed = undefined;
  }
  const object = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : {};
  return { id, tool, arguments: object, argumentsJson, reason };
}

/** `always`: allow this tool for the rest of the run; `arguments`: run it with these (validated again) instead. */
export type Decision =
  | { approve: true; always?: boolean }
  | { approve: true; arguments: string | JsonObject }
  | { approve: false; message?: string };

/** A run's budgets, and a session's (`session_tokens`, `session_cost`: every turn of the session together). */
export type LimitKind = 'iterations' | 'tokens' | 'cost' | 'time' | 'session_tokens' | 'session_cost';

export interface LimitRequest {
  kind: LimitKind;
  used: number;
  limit: number;
}

/** `extend`: raise the limit by `by` (tokens, dollars, ms, iterations); `finish`: the forced final turn; `stop`: now. */
export type LimitDecision = { action: 'extend'; by: number } | { action: 'finish' } | { action: 'stop' };
