// The budget stage's events (warnings, spent limits, a person's answer to a limit question) as sentences.
import type { RunEventOf } from '../../src/engine/stage.js';
import type {} from '../../stages/guards/budget.js';
import type {} from '../../stages/guards/session-budget.js';
import { kindNames, type BudgetKind } from '../../stages/guards/budget-decide.js';
import type { LimitsInForce } from '../../stages/guards/limits.js';

type BudgetEvent =
  | RunEventOf<'budget_warning'>
  | RunEventOf<'budget_exhausted'>
  | RunEventOf<'budget_stop'>
  | RunEventOf<'budget_decided'>
  | RunEventOf<'session_budget_spent'>;

/** An amount of one budget in its unit: tokens and iterations as counts, cost in dollars, time (kept in ms) in seconds. */
export function amountOf(kind: string, value: number): string {
  if (kind.startsWith('session_')) return amountOf(kind.slice('session_'.length), value);
  if (kind === 'cost') return `$${value.toFixed(4)}`;
  if (kind === 'time') return `${(value / 1000).toFixed(1)} s`;
  const count = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return kind === 'tokens' || kind === 'iterations' ? `${count} ${value === 1 ? kind.slice(0, -1) : kind}` : count;
}

function nameOf(kind: string): string {
  if (kind.startsWith('session_')) return `session's ${nameOf(kind.slice('session_'.length))}`;
  return kindNames[kind as BudgetKind] ?? kind;
}

export function budgetLine(event: BudgetEvent): string {
  switch (event.type) {
    case 'budget_warning': {
      const { kind, used, limit, fraction } = event.data;
      return `budget: the ${nameOf(kind)} budget is ${Math.floor(fraction * 100)}% spent (${amountOf(kind, used)} of ${amountOf(kind, limit)})`;
    }
    case 'budget_exhausted': {
      const { kind, used, limit } = event.data;
      return `budget: the ${nameOf(kind)} budget is spent (${amountOf(kind, used)} of ${amountOf(kind, limit)}): one last answer without tools`;
    }
    case 'budget_stop':
      return `budget: the ${nameOf(event.data.kind)} budget of ${amountOf(event.data.kind, event.data.limit)} stops the run`;
    case 'session_budget_spent': {
      const { kind, used, limit, action } = event.data;
      const spent = `budget: the session's ${nameOf(kind)} budget is spent (${amountOf(kind, used)} of ${amountOf(kind, limit)}, its earlier turns included)`;
      return action === 'stop' ? `${spent}: the turn stops` : `${spent}: one last answer without tools`;
    }
    case 'budget_decided': {
      const { kind, action, by } = event.data;
      const question = `the ${nameOf(kind)} budget was spent`;
      if (action === 'extend' && by !== undefined)
        return `limit question (${question}): a person added ${amountOf(kind, by)}`;
      if (action === 'finish') return `limit question (${question}): a person asked for the final answer now`;
      if (action === 'stop') return `limit question (${question}): a person stopped the run`;
      return `limit question (${question}): no answer, the budget takes its usual course`;
    }
  }
}

/** The limits a run has (the `limits` event), in words: each limit or what it is when off. */
export function limitsLine(limits: LimitsInForce): string {
  const { maxIterations, maxTokens, maxCostUsd, timeoutSeconds, loopLimit, contextBudget } = limits;
  const parts = [
    amountOf('iterations', maxIterations),
    maxTokens === null ? 'no token limit' : amountOf('tokens', maxTokens),
    maxCostUsd === null ? 'no cost limit' : amountOf('cost', maxCostUsd),
    timeoutSeconds === null ? 'no time limit' : `${timeoutSeconds} s`,
    loopLimit === null ? 'no repeated-call guard' : `the ${ordinal(loopLimit)} identical failing call refused`,
    contextBudget === null ? 'no pruning' : `each request pruned to ${amountOf('tokens', contextBudget)}`,
  ];
  return `limits in force: ${parts.join(', ')}`;
}

function ordinal(count: number): string {
  const tens = count % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[count % 10] ?? 'th');
  return `${count}${suffix}`;
}
