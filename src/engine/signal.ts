// Flow signals a stage may return: nothing means continue.
import type { JsonValue } from '../common/json.js';

export type SignalType = 'break_loop' | 'abort_run' | 'interrupt_run';

/** Something a run waits for a person to decide (a tool call to approve, say); JSON only, so it can be stored. */
export interface PendingDecision {
  id: string;
  kind: string;
  reason: string;
  [field: string]: JsonValue;
}

export interface Signal {
  readonly type: SignalType;
  readonly reason: string;
  /** Short snake_case word that becomes the run's stop reason kind, e.g. `completed` or `budget_tokens`. */
  readonly kind: string;
  /** interrupt_run only: what the run waits for. */
  readonly pending?: readonly PendingDecision[];
}

const kindPattern = /^[a-z][a-z0-9_]*$/;

function makeSignal(type: SignalType, reason: string, kind: string, pending?: readonly PendingDecision[]): Signal {
  if (!kindPattern.test(kind)) {
    throw new TypeError(
      `signal kind "${kind}" is not snake_case: use lowercase words joined by underscores, e.g. "budget_tokens"`,
    );
  }
  return Object.freeze(
    pending === undefined ? { type, reason, kind } : { type, reason, kind, pending: Object.freeze([...pending]) },
  );
}

/** Finish the current iteration (its remaining stages still run), then leave the loop. */
export function breakLoop(reason: string, kind = 'completed'): Signal {
  return makeSignal('break_loop', reason, kind);
}

/** Leave now: no further setup or iteration stage runs; finalize still does. */
export function abortRun(reason: string, kind = 'aborted'): Signal {
  return makeSignal('abort_run', reason, kind);
}

/**
 * Pause: the run ends `interrupted` with `pending` on its result, finalize does not run, and a resume re-enters this
 * same stage with the state as it left it (the stages before it in the iteration are not run again).
 */
export function interruptRun(reason: string, pending: readonly PendingDecision[], kind = 'awaiting_decision'): Signal {
  if (pending.length === 0)
    throw new TypeError('interruptRun needs at least one pending decision: return nothing to continue instead');
  return makeSignal('interrupt_run', reason, kind, pending);
}

export function isSignal(value: unknown): value is Signal {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'break_loop' || type === 'abort_run' || type === 'interrupt_run';
}
