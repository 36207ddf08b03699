// What a person decides during a run, as data: the requests the ports ask and the answers they take (journaled as is).
import type { JsonObject } from '../common/json.js';

/** A tool call waiting for a person: `arguments` is the JSON text the model sent. */
export interface ApprovalRequest {
  id: string;
  tool: string;
  arguments: string;
  reason: string;
}

/** `always`: allow this tool for the rest of the run; `arguments`: run it with these (validated again) instead. */
export type Decision =
  | { approve: true; always?: boolean }
  | { approve: true; arguments: string | JsonObject }
  | { approve: false; message?: string };

export type LimitKind = 'iterations' | 'tokens' | 'cost' | 'time';

export interface LimitRequest {
  kind: LimitKind;
  used: number;
  limit: number;
}

/** `extend`: raise the limit by `by` (tokens, dollars, ms, iterations); `finish`: the forced final turn; `stop`: now. */
export type LimitDecision = { action: 'extend'; by: number } | { action: 'finish' } | { action: 'stop' };
