// sessionBudget: reads the history slot's `spent` (the session's earlier turns), the run's usage, ctx.deps.model and
// ctx.deps.onLimit; writes nextTurn.withoutTools, nextTurn.limit, nextTurn.notes and the `sessionBudget` slot;
// returns abortRun(budget_session) when the session's token or cost budget is spent.
import { abortRun, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { turnUsage } from '../../src/sessions/turn-usage.js';
import type { SessionUsage } from '../../src/sessions/types.js';
import type { ModelPrice } from './budget-options.js';
import type {} from './turn-limit-slot.js';
import type {} from '../session/history-slot.js';
import type {} from '../../src/durable/decisions.js';
import { waitBegins, waitEnds } from '../shared/person-wait.js';

export type SessionBudgetKind = 'tokens' | 'cost';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    session_budget_spent: { kind: SessionBudgetKind; used: number; limit: number; action: 'final_turn' | 'stop' };
  }
}

export interface SessionBudgetOptions {
  /** Input + output tokens of all the session's turns, this one included. */
  maxTokens?: number;
  /** US dollars of all the session's turns (the model's price must be known; a local model costs nothing). */
  maxCostUsd?: number;
  /** 'soft' (default): crossed during a turn, one tools-less answer ends it; 'hard': the turn stops at once. */
  mode?: 'soft' | 'hard';
  /** Prices per model name, over the override file's and the maintained table's. */
  prices?: Readonly<Record<string, ModelPrice>>;
}

export interface SessionBudgetSlot {
  /** What a person added to each limit when asked (deps.onLimit). */
  extended?: Partial<Record<SessionBudgetKind, number>>;
  /** The iteration whose model call was granted as the tools-less last one. */
  finalTurn?: number;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    sessionBudget: SessionBudgetSlot;
  }
}

/** A spent budget: what the session used of it, its limit (a person's extensions included), spent before this turn. */
interface Spent {
  kind: SessionBudgetKind;
  used: number;
  limit: number;
  before: boolean;
}

const figureOf = { tokens: 'tokens', cost: 'costUsd' } as const satisfies Record<SessionBudgetKind, keyof SessionUsage>;

export function sessionBudget(options: SessionBudgetOptions): Stage {
  for (const [name, value] of [
    ['maxTokens', options.maxTokens],
    ['maxCostUsd', options.maxCostUsd],
  ] as const) {
    if (value !== undefined && !(typeof value === 'number' && value > 0 && Number.isFinite(value)))
      throw new StageloopError(
        'config',
        `sessionBudget: ${name} must be a positive number, got ${JSON.stringify(value)}`,
      );
  }
  if (options.maxTokens === undefined && options.maxCostUsd === undefined)
    throw new StageloopError('config', 'sessionBudget: give maxTokens or maxCostUsd');
  const configured: Partial<Record<SessionBudgetKind, number>> = {
    tokens: options.maxTokens,
    cost: options.maxCostUsd,
  };

  function check(state: RunState, ctx: StageContext): Signal | void | Promise<Signal | void> {
    // Checked before every model call of a turn of a session ("validated at every loop entry point").
    if (state.history === undefined) return;
    const slot = (state.sessionBudget ??= {});
    const earlier = state.history.spent ?? { tokens: 0, costUsd: 0 };
    const turn = turnUsage(state.usage, ctx.deps.model?.modelName, options.prices, options.maxCostUsd !== undefined);
    const limitOf = (kind: SessionBudgetKind) => configured[kind]! + (slot.extended?.[kind] ?? 0);
    const kind = (['tokens', 'cost'] as const).find(
      (candidate) =>
        configured[candidate] !== undefined &&
        earlier[figureOf[candidate]] + turn[figureOf[candidate]] >= limitOf(candidate),
    );
    if (kind === undefined) return;
    const spent: Spent = {
      kind,
      used: earlier[figureOf[kind]] + turn[figureOf[kind]],
      limit: limitOf(kind),
      before: earlier[figureOf[kind]] >= limitOf(kind),
    };
    if (slot.finalTurn !== undefined)
      return slot.finalTurn < state.iteration
        ? stop(ctx, spent, 'and the last tools-less answer did not end the turn')
        : undefined;
    if (ctx.deps.onLimit !== undefined) return ask(state, ctx, slot, spent);
    return spentAction(state, ctx, slot, spent);
  }

  async function ask(
    state: RunState,
    ctx: StageContext,
    slot: SessionBudgetSlot,
    spent: Spent,
  ): Promise<Signal | void> {
    const { kind, used, limit } = spent;
    waitBegins(state, ctx);
    const answer = await ctx.deps.onLimit!({ kind: `session_${kind}`, used, limit });
    waitEnds(state, ctx);
    ctx.emit('budget_decided', { kind: `session_${kind}`, ...(answer ?? { action: 'none' }) });
    if (answer?.action === 'extend' && answer.by > 0) {
      (slot.extended ??= {})[kind] = (slot.extended[kind] ?? 0) + answer.by;
      return check(state, ctx);
    }
    if (answer?.action === 'stop') return stop(ctx, spent, 'and a person stopped the turn');
    if (answer?.action === 'finish') return finalTurn(state, ctx, slot, spent);
    return spentAction(state, ctx, slot, spent);
  }

  /** Spent before this turn began: the turn makes no call. Crossed during it: soft mode grants one tools-less answer. */
  function spentAction(state: RunState, ctx: StageContext, slot: SessionBudgetSlot, spent: Spent): Signal | void {
    if (spent.before) return stop(ctx, spent, 'by its earlier turns: this turn makes no model call');
    if ((options.mode ?? 'soft') === 'hard') return stop(ctx, spent, '(hard mode: no last answer)');
    return finalTurn(state, ctx, slot, spent);
  }

  function finalTurn(state: RunState, ctx: StageContext, slot: SessionBudgetSlot, spent: Spent): void {
    slot.finalTurn = state.iteration;
    state.nextTurn.withoutTools = true;
    state.nextTurn.limit = { kind: 'budget_session', reason: spentText(spent) };
    state.nextTurn.notes.push(
      `The session's ${spent.kind === 'cost' ? 'cost' : 'token'} budget is spent. No tools are available now: give your best final answer from what you already have.`,
    );
    ctx.emit('session_budget_spent', { kind: spent.kind, used: spent.used, limit: spent.limit, action: 'final_turn' });
  }

  function stop(ctx: StageContext, spent: Spent, why: string): Signal {
    ctx.emit('session_budget_spent', { kind: spent.kind, used: spent.used, limit: spent.limit, action: 'stop' });
    return abortRun(`${spentText(spent)} ${why}`, 'budget_session');
  }

  return { name: 'session-budget', quiet: true, execute: check };
}

function spentText({ kind, used, limit }: Spent): string {
  return kind === 'cost'
    ? `the session's cost budget of $${limit} is spent ($${used.toFixed(4)})`
    : `the session's token budget of ${limit} is spent (${used} tokens)`;
}
