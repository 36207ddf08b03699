// Flow signals a stage may return: nothing means continue.

export type SignalType = 'break_loop' | 'abort_run';

export interface Signal {
  readonly type: SignalType;
  readonly reason: string;
  /** Short snake_case word that becomes the run's stop reason kind, e.g. `completed` or `budget_tokens`. */
  readonly kind: string;
}

const kindPattern = /^[a-z][a-z0-9_]*$/;

function makeSignal(type: SignalType, reason: string, kind: string): Signal {
  if (!kindPattern.test(kind)) {
    throw new TypeError(`signal kind "${kind}" is not snake_case: use lowercase words joined by underscores, e.g. "budget_tokens"`);
  }
  return Object.freeze({ type, reason, kind });
}

/** Finish the current iteration (its remaining stages still run), then leave the loop. */
export function breakLoop(reason: string, kind = 'completed'): Signal {
  return makeSignal('break_loop', reason, kind);
}

/** Leave now: no further setup or iteration stage runs; finalize still does. */
export function abortRun(reason: string, kind = 'aborted'): Signal {
  return makeSignal('abort_run', reason, kind);
}

export function isSignal(value: unknown): value is Signal {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'break_loop' || type === 'abort_run';
}
