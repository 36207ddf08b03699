// budget: reads iteration, usage, messages, ctx.deps.model/clock; writes nextTurn.notes, nextTurn.withoutTools, nextTurn.limit and the `budget` slot, arms a time deadline; returns abortRun (budget_iterations | budget_tokens | budget_cost | budget_time).
import { abortRun, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { rejectingThrows } from '../../src/common/promise-like.js';
import { validate, type BudgetOptions } from './budget-options.js';
import type {} from './turn-limit-slot.js';
import type { LimitedStage } from './limits.js';
import { decide, kindNames, usedOf, type BudgetDecision, type BudgetKind, type BudgetLimits } from './budget-decide.js';
import { budgetLedger, type BudgetSlot } from './budget-ledger.js';
import { armDeadline, waitBegins, waitEnds } from '../shared/person-wait.js';
import type {} from '../../src/durable/decisions.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    budget_decided: { kind: string; action: string; by?: number };
    budget_warning: { kind: BudgetKind; used: number; limit: number; fraction: number };
    budget_exhausted: { kind: BudgetKind; used: number; limit: number };
    budget_stop: { kind: BudgetKind; limit: number };
  }
}

export type { BudgetKind, BudgetMode } from './budget-decide.js';
export { costUsd, priceFor, type BudgetOptions, type ModelPrice } from './budget-options.js';
export type { BudgetSlot } from './budget-ledger.js';

/** The budget stage; `start` is its optional setup-zone companion that starts the clock before any model call. */
export interface BudgetStage extends LimitedStage {
  readonly start: Stage;
}

export function budget(options: BudgetOptions): BudgetStage {
  const settings = validate(options);
  const ledger = budgetLedger(settings);
  const mode = settings.mode ?? 'soft';

  function check(state: RunState, ctx: StageContext): Signal | void | Promise<Signal | void> {
    const slot = ledger.start(state, ctx);
    if (ctx.zone === 'setup') return;
    const measuring = ledger.measure(state, ctx, slot);
    if (measuring instanceof Promise) return measuring.then(() => decided(state, ctx, slot, usedOf(slot.spent), true));
    // The usual turn: a few comparisons, no object made.
    if (ledger.farFromLimits(slot)) return;
    return decided(state, ctx, slot, usedOf(slot.spent), true);
  }

  /** decide() and its effects. */
  function decided(
    state: RunState,
    ctx: StageContext,
    slot: BudgetSlot,
    used: Record<BudgetKind, number>,
    canAsk: boolean,
  ): Signal | void | Promise<Signal | void> {
    const limits = ledger.limitsIn(slot);
    const decision = decide(used, limits, mode, {
      iteration: state.iteration,
      warnAt: settings.warnAt,
      warned: slot.warned,
      finalTurn: slot.finalTurn,
      canAsk: canAsk && ctx.deps.onLimit !== undefined,
    });
    return apply(state, ctx, slot, used, limits, decision);
  }

  function apply(
    state: RunState,
    ctx: StageContext,
    slot: BudgetSlot,
    used: Record<BudgetKind, number>,
    limits: BudgetLimits,
    decision: BudgetDecision,
  ): Signal | void | Promise<Signal | void> {
    switch (decision.action) {
      case 'continue':
        return;
      case 'stop':
        return stop(ctx, slot, decision.kind, decision.reason);
      case 'ask':
        return askPerson(state, ctx, slot, decision.kind, used);
      case 'estimate':
        return ledger
          .nextCallCrosses(state, ctx, slot, used)
          .then((crossing) =>
            crossing === undefined
              ? apply(state, ctx, slot, used, limits, decision.then)
              : stop(ctx, slot, crossing.kind, crossing.reason),
          );
      case 'final_turn': {
        const kind = decision.kind;
        slot.finalTurn = { kind, iteration: state.iteration };
        state.nextTurn.withoutTools = true;
        state.nextTurn.limit = {
          kind: `budget_${kind}`,
          reason: `the ${kindNames[kind]} budget of ${spentLimit(kind, limits[kind]!)} was spent`,
        };
        state.nextTurn.notes.push(
          `The ${kindNames[kind]} budget is spent. No tools are available now: give your best final answer from what you already have.`,
        );
        ctx.emit('budget_exhausted', { kind, used: used[kind], limit: limits[kind]! });
        return;
      }
      case 'warn':
        for (const kind of decision.kinds) {
          const fraction = used[kind] / limits[kind]!;
          slot.warned.push(kind);
          state.nextTurn.notes.push(
            `The ${kindNames[kind]} budget is ${Math.floor(fraction * 100)}% spent (${spentText(kind, used[kind], limits[kind]!)}). Finish soon: prefer answering over more tool calls.`,
          );
          ctx.emit('budget_warning', { kind, used: used[kind], limit: limits[kind]!, fraction });
        }
        return;
    }
  }

  async function askPerson(
    state: RunState,
    ctx: StageContext,
    slot: BudgetSlot,
    kind: BudgetKind,
    used: Record<BudgetKind, number>,
  ): Promise<Signal | void> {
    const limitOf = (spent: BudgetKind) => ledger.limitsIn(slot)[spent]!;
    waitBegins(state, ctx);
    const answer = await ctx.deps.onLimit!({ kind, used: used[kind], limit: limitOf(kind) });
    waitEnds(state, ctx);
    ctx.emit('budget_decided', { kind, ...(answer ?? { action: 'none' }) });
    if (answer?.action === 'stop')
      return stop(ctx, slot, kind, `a person stopped the run when the ${kindNames[kind]} budget was spent`);
    if (answer?.action === 'extend' && answer.by > 0) {
      (slot.extended ??= {})[kind] = (slot.extended[kind] ?? 0) + answer.by;
      if (kind === 'time')
        armDeadline(
          state,
          ctx,
          slot.startedAt + limitOf('time'),
          `the time budget of ${limitOf('time') / 1000} s was reached`,
          'budget_time',
        );
      return check(state, ctx);
    }
    // No decision: the budget takes its usual course (the final tools-less turn).
    return decided(state, ctx, slot, used, false);
  }

  function stop(ctx: StageContext, slot: BudgetSlot, kind: BudgetKind, reason: string): Signal {
    ctx.emit('budget_stop', { kind, limit: ledger.limitsOf(slot)[kind]! });
    return abortRun(reason, `budget_${kind}`);
  }

  return {
    name: 'budget',
    quiet: true,
    execute: check,
    limitsInForce(modelName) {
      const tokens = ledger.tokenLimitFor(modelName);
      return {
        ...(settings.maxIterations !== undefined && { maxIterations: settings.maxIterations }),
        ...(tokens !== undefined && { maxTokens: tokens }),
        ...(settings.maxCostUsd !== undefined && { maxCostUsd: settings.maxCostUsd }),
        ...(settings.maxTimeMs !== undefined && { timeoutSeconds: settings.maxTimeMs / 1000 }),
      };
    },
    // Synchronous, so the stage loop need not await a stage that never waits; a configuration error still rejects.
    start: {
      name: 'budget-start',
      quiet: true,
      execute: (state, ctx) => rejectingThrows(() => void ledger.start(state, ctx)),
    },
  };
}

function spentLimit(kind: BudgetKind, limit: number): string {
  if (kind === 'cost') return `$${limit}`;
  if (kind === 'time') return `${limit / 1000} s`;
  return kind === 'tokens' ? `${limit} tokens` : `${limit} iterations`;
}

function spentText(kind: BudgetKind, used: number, limit: number): string {
  if (kind === 'cost') return `$${used.toFixed(4)} of $${limit}`;
  if (kind === 'time') return `${Math.round(used / 1000)} s of ${limit / 1000} s`;
  return `${used} of ${limit}`;
}
