// What the budget does at a check, as a pure function of what was used, the limits and the mode: no state, no clock, no events (budget.ts applies the decision).
export type BudgetKind = 'iterations' | 'tokens' | 'cost' | 'time';
export type BudgetMode = 'soft' | 'hard';

/** What the run has used, per kind (tokens input + output, cost in USD, time in ms). */
export type BudgetUsed = Readonly<Record<BudgetKind, number>>;
/** The limits in force (a person's extensions included); a kind without a limit is absent. */
export type BudgetLimits = Readonly<Partial<Record<BudgetKind, number>>>;

/** What earlier checks left behind that the decision depends on. */
export interface BudgetHistory {
  readonly iteration: number;
  readonly warnAt: number;
  readonly warned: readonly BudgetKind[];
  readonly finalTurn: { readonly kind: BudgetKind; readonly iteration: number } | null;
  /** A person can be asked what to do with a spent limit (deps.onLimit). */
  readonly canAsk: boolean;
}

export type BudgetDecision =
  /** Nothing to say or do (the usual turn). */
  | { readonly action: 'continue' }
  /** Tell the model these budgets are nearly spent (each kind once). */
  | { readonly action: 'warn'; readonly kinds: readonly BudgetKind[] }
  /** The budget is spent: one tools-less turn for the best answer. */
  | { readonly action: 'final_turn'; readonly kind: BudgetKind }
  /** End the run with `budget_<kind>`. */
  | { readonly action: 'stop'; readonly kind: BudgetKind; readonly reason: string }
  /** Ask a person (deps.onLimit) about this spent budget first. */
  | { readonly action: 'ask'; readonly kind: BudgetKind }
  /** Hard mode: estimate the next call against the token and cost limits, then do `then`. */
  | { readonly action: 'estimate'; readonly then: BudgetDecision };

export const kinds: readonly BudgetKind[] = ['iterations', 'tokens', 'cost', 'time'];
export const kindNames: Readonly<Record<BudgetKind, string>> = {
  iterations: 'iteration',
  tokens: 'token',
  cost: 'cost',
  time: 'time',
};

export function decide(
  used: BudgetUsed,
  limits: BudgetLimits,
  mode: BudgetMode,
  history: BudgetHistory,
): BudgetDecision {
  const active = kinds.filter((kind) => limits[kind] !== undefined);
  const fraction = (kind: BudgetKind) => used[kind] / limits[kind]!;
  const spent = active.filter((kind) => fraction(kind) >= 1);
  const first = spent.includes('time') ? 'time' : spent[0];
  if (first !== undefined && history.canAsk && history.finalTurn === null && mode !== 'hard')
    return { action: 'ask', kind: first };
  if (spent.includes('time')) return { action: 'stop', kind: 'time', reason: 'the time budget is spent' };
  const exhausted = spent.filter((kind) => kind !== 'time');
  if (mode === 'hard') {
    const kind = exhausted.find((candidate) => candidate !== 'iterations');
    if (kind !== undefined)
      return { action: 'stop', kind, reason: `the ${kindNames[kind]} budget is spent (hard mode: no final turn)` };
    const then = spentOrWarned(exhausted, active, fraction, history);
    return limits.tokens === undefined && limits.cost === undefined ? then : { action: 'estimate', then };
  }
  return spentOrWarned(exhausted, active, fraction, history);
}

/** True when no active budget has reached its warning share: the check has nothing to decide (soft mode). */
export function farFromLimits(
  used: BudgetUsed,
  limits: BudgetLimits,
  mode: BudgetMode,
  history: Pick<BudgetHistory, 'warnAt' | 'finalTurn'>,
): boolean {
  const spent = { iterations: used.iterations, tokens: used.tokens, costUsd: used.cost, timeMs: used.time };
  return quietTurn(spent, warningThresholds(limits, history.warnAt), mode, history.finalTurn);
}

/** The figures a budget slot keeps of what was spent. */
export interface SpentFigures {
  readonly iterations: number;
  readonly tokens: number;
  readonly costUsd: number;
  readonly timeMs: number;
}

/** farFromLimits with the thresholds made beforehand (the budget's usual check: a few comparisons, no object made). */
export function quietTurn(
  spent: SpentFigures,
  thresholds: WarningThresholds,
  mode: BudgetMode,
  finalTurn: BudgetHistory['finalTurn'],
): boolean {
  if (mode === 'hard' || finalTurn !== null) return false;
  return (
    spent.iterations < thresholds.iterations &&
    spent.tokens < thresholds.tokens &&
    spent.costUsd < thresholds.cost &&
    spent.timeMs < thresholds.time
  );
}

/** What a budget slot's figures say was used, as decide() reads it (a copy: the slot's figures move on at the next check). */
export function usedOf(spent: SpentFigures): BudgetUsed {
  return { iterations: spent.iterations, tokens: spent.tokens, cost: spent.costUsd, time: spent.timeMs };
}

/** What each kind may reach before its warning share (warnAt x limit); Infinity for a kind without a limit. */
export interface WarningThresholds {
  readonly limits: BudgetLimits;
  readonly iterations: number;
  readonly tokens: number;
  readonly cost: number;
  readonly time: number;
}

/** The thresholds behind farFromLimits, made once per set of limits so the usual check is four comparisons. */
export function warningThresholds(limits: BudgetLimits, warnAt: number): WarningThresholds {
  const threshold = (limit: number | undefined) => (limit === undefined ? Infinity : warnAt * limit);
  return {
    limits,
    iterations: threshold(limits.iterations),
    tokens: threshold(limits.tokens),
    cost: threshold(limits.cost),
    time: threshold(limits.time),
  };
}

function spentOrWarned(
  exhausted: readonly BudgetKind[],
  active: readonly BudgetKind[],
  fraction: (kind: BudgetKind) => number,
  history: BudgetHistory,
): BudgetDecision {
  const kind = exhausted[0];
  if (kind !== undefined) {
    if (history.finalTurn === null) return { action: 'final_turn', kind };
    if (history.finalTurn.iteration < history.iteration)
      return {
        action: 'stop',
        kind,
        reason: `the ${kindNames[kind]} budget is spent and the final tools-less turn did not end the run`,
      };
    return { action: 'continue' };
  }
  const warn = active.filter(
    (candidate) => fraction(candidate) >= history.warnAt && !history.warned.includes(candidate),
  );
  return warn.length === 0 ? { action: 'continue' } : { action: 'warn', kinds: warn };
}
