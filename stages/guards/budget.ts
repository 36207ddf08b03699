// budget: reads iteration, usage, messages, ctx.deps.model/clock; writes nextTurn.notes, nextTurn.withoutTools, nextTurn.limit and the `budget` slot, arms a time deadline; returns abortRun (budget_iterations | budget_tokens | budget_cost | budget_time).
import { abortRun, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { rejectingThrows } from '../../src/common/promise-like.js';
import { costUsd, priceFor, validate, type BudgetOptions, type ModelPrice } from './budget-options.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { conversationTokens, loadTokenCounter, messageTokens } from '../../src/model/token-count.js';
import type {} from './turn-limit.js';
import { contextShareTokens } from './context-window.js';
import type { LimitedStage } from './limits.js';
import { decide, kindNames, quietTurn, usedOf, warningThresholds, type BudgetDecision, type BudgetKind, type BudgetLimits, type BudgetMode, type WarningThresholds } from './budget-decide.js';
import { armDeadline, waitBegins, waitedMs, waitEnds } from '../approval/person-wait.js';
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

export interface BudgetSlot {
  startedAt: number;
  warned: BudgetKind[];
  /** The budget whose exhaustion granted the one tools-less final turn, and when. */
  finalTurn: { kind: BudgetKind; iteration: number } | null;
  spent: { iterations: number; tokens: number; costUsd: number; timeMs: number };
  /** Our own estimate for turns whose model reported no usage at all. */
  estimated: { inputTokens: number; outputTokens: number };
  lastCheck: { reportedTokens: number; messageCount: number; iteration: number };
  /** Output tokens counted at the last check and the most one turn has produced (hard mode's output estimate). */
  output?: { total: number; largestTurn: number };
  /** What a person added to each limit when asked (deps.onLimit). */
  extended?: Partial<Record<BudgetKind, number>>;
  /** The token limit resolved from contextShare for this run's model (kept, so a resumed run keeps it). */
  tokenLimit?: number;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    budget: BudgetSlot;
  }
}

/** The budget stage; `start` is its optional setup-zone companion that starts the clock before any model call. */
export interface BudgetStage extends LimitedStage {
  readonly start: Stage;
}

export function budget(options: BudgetOptions): BudgetStage {
  const settings = validate(options);
  const configured: Partial<Record<BudgetKind, number>> = {
    iterations: settings.maxIterations,
    tokens: settings.maxTokens,
    cost: settings.maxCostUsd,
    time: settings.maxTimeMs,
  };
  const tokenLimitFor = (modelName: string | undefined): number | undefined =>
    settings.maxTokens !== undefined || settings.contextShare === undefined ? settings.maxTokens : contextShareTokens(modelName, settings.contextShare, settings.contextWindows);
  // The limits with a run's resolved token limit, made once per limit rather than on every check (read-only).
  let resolved: { tokenLimit: number; limits: Partial<Record<BudgetKind, number>> } | undefined;
  const limitsOf = (slot: BudgetSlot): Partial<Record<BudgetKind, number>> => {
    const tokenLimit = slot.tokenLimit;
    if (tokenLimit === undefined) return configured;
    if (resolved?.tokenLimit !== tokenLimit) resolved = { tokenLimit, limits: { ...configured, tokens: tokenLimit } };
    return resolved.limits;
  };
  const countsTokens = settings.maxTokens !== undefined || settings.contextShare !== undefined || settings.maxCostUsd !== undefined;
  const mode: BudgetMode = settings.mode ?? 'soft';
  /** The limits in force for this run: the configured ones, the token limit resolved for its model, a person's extensions. */
  const limitsIn = (slot: BudgetSlot): BudgetLimits => {
    const base = limitsOf(slot);
    const extended = slot.extended;
    if (extended === undefined) return base;
    const limits: Partial<Record<BudgetKind, number>> = { ...base };
    for (const kind of Object.keys(extended) as BudgetKind[]) if (limits[kind] !== undefined) limits[kind] = limits[kind]! + extended[kind]!;
    return limits;
  };

  function start(state: RunState, ctx: StageContext): BudgetSlot {
    const slot = (state.budget ??= {
      // The clock is read only for a time budget: a read is a journal entry in a durable run, and the state stays exact.
      startedAt: settings.maxTimeMs === undefined ? 0 : ctx.deps.clock.now(),
      warned: [],
      finalTurn: null,
      spent: { iterations: 0, tokens: 0, costUsd: 0, timeMs: 0 },
      estimated: { inputTokens: 0, outputTokens: 0 },
      lastCheck: { reportedTokens: 0, messageCount: 0, iteration: 0 },
    });
    if (slot.tokenLimit === undefined && settings.maxTokens === undefined && settings.contextShare !== undefined) slot.tokenLimit = tokenLimitFor(ctx.deps.model?.modelName);
    if (settings.maxTimeMs !== undefined) {
      // Re-armed on every check (it replaces itself), so a resumed run gets its deadline back.
      armDeadline(state, ctx, slot.startedAt + settings.maxTimeMs + (slot.extended?.time ?? 0), `the time budget of ${(settings.maxTimeMs + (slot.extended?.time ?? 0)) / 1000} s was reached`, 'budget_time');
    }
    if (settings.maxCostUsd !== undefined) modelPrice(ctx);
    return slot;
  }

  function modelPrice(ctx: StageContext): ModelPrice {
    const modelName = ctx.deps.model?.modelName;
    if (modelName === undefined) return { input: 0, output: 0 };
    const price = priceFor(modelName, settings.prices);
    if (price === undefined) {
      throw new StageloopError(
        'config',
        `budget: no price is known for model "${modelName}", so a cost budget cannot be enforced; give one with budget({ prices: { "${modelName}": { input: 2.5, output: 10 } } }) in USD per million tokens`,
      );
    }
    return price;
  }

  /** Updates slot.spent; sync unless a turn reported no usage and must be counted with the tokenizer (loaded lazily). */
  function measure(state: RunState, ctx: StageContext, slot: BudgetSlot): void | Promise<void> {
    if (countsTokens && unreportedTurn(state, slot)) return estimateUnreported(state, slot).then(() => measured(state, ctx, slot));
    if (countsTokens) noteCheck(state, slot);
    measured(state, ctx, slot);
  }

  function measured(state: RunState, ctx: StageContext, slot: BudgetSlot): void {
    const inputTokens = state.usage.inputTokens + slot.estimated.inputTokens;
    const outputTokens = state.usage.outputTokens + slot.estimated.outputTokens;
    const output = (slot.output ??= { total: 0, largestTurn: 0 });
    output.largestTurn = Math.max(output.largestTurn, outputTokens - output.total);
    output.total = outputTokens;
    // Updated in place: the check runs every turn.
    const spent = slot.spent;
    spent.iterations = state.iteration;
    spent.tokens = inputTokens + outputTokens;
    spent.costUsd = settings.maxCostUsd === undefined ? 0 : costUsd({ inputTokens, outputTokens, cachedInputTokens: state.usage.cachedInputTokens }, modelPrice(ctx));
    // Time waiting for a person (an approval, a limit question) is not the run's time.
    spent.timeMs = settings.maxTimeMs === undefined ? 0 : ctx.deps.clock.now() - slot.startedAt - waitedMs(state);
  }

  let thresholds: WarningThresholds | undefined;
  /** Soft mode before any final turn, every budget below its warning share (farFromLimits): nothing to decide. */
  function farFromLimits(slot: BudgetSlot): boolean {
    const limits = limitsIn(slot);
    if (thresholds?.limits !== limits) thresholds = warningThresholds(limits, settings.warnAt);
    return quietTurn(slot.spent, thresholds, mode, slot.finalTurn);
  }

  function check(state: RunState, ctx: StageContext): Signal | void | Promise<Signal | void> {
    const slot = start(state, ctx);
    if (ctx.zone === 'setup') return;
    const measuring = measure(state, ctx, slot);
    if (measuring instanceof Promise) return measuring.then(() => decided(state, ctx, slot, usedOf(slot.spent), true));
    // The usual turn: a few comparisons, no object made.
    if (farFromLimits(slot)) return;
    return decided(state, ctx, slot, usedOf(slot.spent), true);
  }

  /** decide() and its effects. */
  function decided(state: RunState, ctx: StageContext, slot: BudgetSlot, used: Record<BudgetKind, number>, canAsk: boolean): Signal | void | Promise<Signal | void> {
    const limits = limitsIn(slot);
    const decision = decide(used, limits, mode, { iteration: state.iteration, warnAt: settings.warnAt, warned: slot.warned, finalTurn: slot.finalTurn, canAsk: canAsk && ctx.deps.onLimit !== undefined });
    return apply(state, ctx, slot, used, limits, decision);
  }

  function apply(state: RunState, ctx: StageContext, slot: BudgetSlot, used: Record<BudgetKind, number>, limits: BudgetLimits, decision: BudgetDecision): Signal | void | Promise<Signal | void> {
    switch (decision.action) {
      case 'continue':
        return;
      case 'stop':
        return stop(ctx, slot, decision.kind, decision.reason);
      case 'ask':
        return askPerson(state, ctx, slot, decision.kind, used);
      case 'estimate':
        return nextCallCrosses(state, ctx, slot, used).then((crossing) => crossing ?? apply(state, ctx, slot, used, limits, decision.then));
      case 'final_turn': {
        const kind = decision.kind;
        slot.finalTurn = { kind, iteration: state.iteration };
        state.nextTurn.withoutTools = true;
        state.nextTurn.limit = { kind: `budget_${kind}`, reason: `the ${kindNames[kind]} budget of ${spentLimit(kind, limits[kind]!)} was spent` };
        state.nextTurn.notes.push(`The ${kindNames[kind]} budget is spent. No tools are available now: give your best final answer from what you already have.`);
        ctx.emit('budget_exhausted', { kind, used: used[kind], limit: limits[kind]! });
        return;
      }
      case 'warn':
        for (const kind of decision.kinds) {
          const fraction = used[kind] / limits[kind]!;
          slot.warned.push(kind);
          state.nextTurn.notes.push(`The ${kindNames[kind]} budget is ${Math.floor(fraction * 100)}% spent (${spentText(kind, used[kind], limits[kind]!)}). Finish soon: prefer answering over more tool calls.`);
          ctx.emit('budget_warning', { kind, used: used[kind], limit: limits[kind]!, fraction });
        }
        return;
    }
  }

  async function askPerson(state: RunState, ctx: StageContext, slot: BudgetSlot, kind: BudgetKind, used: Record<BudgetKind, number>): Promise<Signal | void> {
    const limitOf = (spent: BudgetKind) => limitsIn(slot)[spent]!;
    waitBegins(state, ctx);
    const answer = await ctx.deps.onLimit!({ kind, used: used[kind], limit: limitOf(kind) });
    waitEnds(state, ctx);
    ctx.emit('budget_decided', { kind, ...(answer ?? { action: 'none' }) });
    if (answer?.action === 'stop') return stop(ctx, slot, kind, `a person stopped the run when the ${kindNames[kind]} budget was spent`);
    if (answer?.action === 'extend' && answer.by > 0) {
      (slot.extended ??= {})[kind] = (slot.extended[kind] ?? 0) + answer.by;
      if (kind === 'time') armDeadline(state, ctx, slot.startedAt + limitOf('time'), `the time budget of ${limitOf('time') / 1000} s was reached`, 'budget_time');
      return check(state, ctx);
    }
    // No decision: the budget takes its usual course (the final tools-less turn).
    return decided(state, ctx, slot, used, false);
  }

  /** Hard mode: the next call's input counted locally, its output guessed as the largest so far. */
  async function nextCallCrosses(state: RunState, ctx: StageContext, slot: BudgetSlot, used: Record<BudgetKind, number>): Promise<Signal | undefined> {
    const limits = limitsOf(slot);
    if (limits.tokens === undefined && limits.cost === undefined) return undefined;
    const count = await loadTokenCounter();
    const next = { inputTokens: conversationTokens(count, state.messages), outputTokens: slot.output?.largestTurn ?? 0, cachedInputTokens: 0 };
    const tokens = next.inputTokens + next.outputTokens;
    if (limits.tokens !== undefined && used.tokens + tokens > limits.tokens) {
      return stop(ctx, slot, 'tokens', `the next model call (about ${tokens} tokens) would cross the token budget of ${limits.tokens} (hard mode)`);
    }
    if (limits.cost !== undefined && used.cost + costUsd(next, modelPrice(ctx)) > limits.cost) {
      return stop(ctx, slot, 'cost', `the next model call (about ${tokens} tokens) would cross the cost budget of $${limits.cost} (hard mode)`);
    }
    return undefined;
  }

  function stop(ctx: StageContext, slot: BudgetSlot, kind: BudgetKind, reason: string): Signal {
    ctx.emit('budget_stop', { kind, limit: limitsOf(slot)[kind]! });
    return abortRun(reason, `budget_${kind}`);
  }

  return {
    name: 'budget',
    execute: check,
    limitsInForce(modelName) {
      const tokens = tokenLimitFor(modelName);
      return {
        ...(settings.maxIterations !== undefined && { maxIterations: settings.maxIterations }),
        ...(tokens !== undefined && { maxTokens: tokens }),
        ...(settings.maxCostUsd !== undefined && { maxCostUsd: settings.maxCostUsd }),
        ...(settings.maxTimeMs !== undefined && { timeoutSeconds: settings.maxTimeMs / 1000 }),
      };
    },
    // Synchronous, so the stage loop need not await a stage that never waits; a configuration error still rejects.
    start: { name: 'budget-start', execute: (state, ctx) => rejectingThrows(() => void start(state, ctx)) },
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

/** A turn happened since the last check and the run's reported usage did not move: the model reported none. */
function unreportedTurn(state: RunState, slot: BudgetSlot): boolean {
  const previous = slot.lastCheck;
  return previous.iteration > 0 && state.iteration > previous.iteration && state.usage.inputTokens + state.usage.outputTokens === previous.reportedTokens;
}

function noteCheck(state: RunState, slot: BudgetSlot): void {
  const last = slot.lastCheck;
  last.reportedTokens = state.usage.inputTokens + state.usage.outputTokens;
  last.messageCount = state.messages.length;
  last.iteration = state.iteration;
}

/**
 * A model that reports no usage leaves state.usage unchanged after its turn: count that turn ourselves with the
 * tokenizer (what was sent at the last check, and the assistant messages added since).
 */
async function estimateUnreported(state: RunState, slot: BudgetSlot): Promise<void> {
  const previous = slot.lastCheck;
  const count = await loadTokenCounter();
  const rerendered = state.messages.length < previous.messageCount;
  const sent = rerendered ? state.messages : state.messages.slice(0, previous.messageCount);
  slot.estimated.inputTokens += conversationTokens(count, sent);
  for (const message of rerendered ? [] : state.messages.slice(previous.messageCount)) {
    if (message.role === 'assistant') slot.estimated.outputTokens += messageTokens(count, message);
  }
  noteCheck(state, slot);
}
