// The budget's bookkeeping in its slot: the slot made at the first check, the limits in force (the token limit resolved
// for the run's model, a person's extensions), what the run has spent, and hard mode's estimate of the next call.
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { conversationTokens, loadTokenCounter, messageTokens } from '../../src/model/token-count.js';
import { contextShareTokens } from '../shared/context-window.js';
import { armDeadline, waitedMs } from '../shared/person-wait.js';
import { costUsd, priceFor, type ModelPrice, type Settings } from './budget-options.js';
import {
  quietTurn,
  warningThresholds,
  type BudgetKind,
  type BudgetLimits,
  type WarningThresholds,
} from './budget-decide.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { perModelName } from '../../src/model/model-table.js';

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

declare module '../../src/engine/state.js' {
  interface StageSlots {
    budget: BudgetSlot;
  }
}

/** The bookkeeping of one budget() stage: functions of its settings, sharing two read-only caches between runs. */
export interface BudgetLedger {
  /** The slot, made at the first check; a time budget's deadline (re-)armed; a cost budget's price checked. */
  start(state: RunState, ctx: StageContext): BudgetSlot;
  /** The configured limits with the run's resolved token limit. */
  limitsOf(slot: BudgetSlot): BudgetLimits;
  /** The same with what a person added to each limit. */
  limitsIn(slot: BudgetSlot): BudgetLimits;
  tokenLimitFor(modelName: string | undefined): number | undefined;
  /** Updates slot.spent; sync unless a turn reported no usage and must be counted with the tokenizer (loaded lazily). */
  measure(state: RunState, ctx: StageContext, slot: BudgetSlot): void | Promise<void>;
  /** Soft mode before any final turn, every budget below its warning share: nothing to decide. */
  farFromLimits(slot: BudgetSlot): boolean;
  /** Hard mode: the next call's input counted locally, its output guessed as the largest so far; the limit it would cross. */
  nextCallCrosses(
    state: RunState,
    ctx: StageContext,
    slot: BudgetSlot,
    used: Record<BudgetKind, number>,
  ): Promise<{ kind: 'tokens' | 'cost'; reason: string } | undefined>;
}

export function budgetLedger(settings: Settings): BudgetLedger {
  const configured: Partial<Record<BudgetKind, number>> = {
    iterations: settings.maxIterations,
    tokens: settings.maxTokens,
    cost: settings.maxCostUsd,
    time: settings.maxTimeMs,
  };
  // Resolved once per model name (every run starts its budget with it; the tables and the prices file do not change).
  const tokenLimitFor = perModelName((modelName: string | undefined): number | undefined =>
    settings.maxTokens !== undefined || settings.contextShare === undefined
      ? settings.maxTokens
      : contextShareTokens(modelName, settings.contextShare, settings.contextWindows),
  );
  // The limits with a run's resolved token limit, made once per limit rather than on every check (read-only).
  let resolved: { tokenLimit: number; limits: Partial<Record<BudgetKind, number>> } | undefined;
  const limitsOf = (slot: BudgetSlot): Partial<Record<BudgetKind, number>> => {
    const tokenLimit = slot.tokenLimit;
    if (tokenLimit === undefined) return configured;
    if (resolved?.tokenLimit !== tokenLimit) resolved = { tokenLimit, limits: { ...configured, tokens: tokenLimit } };
    return resolved.limits;
  };
  const countsTokens =
    settings.maxTokens !== undefined || settings.contextShare !== undefined || settings.maxCostUsd !== undefined;
  const mode = settings.mode ?? 'soft';
  const limitsIn = (slot: BudgetSlot): BudgetLimits => {
    const base = limitsOf(slot);
    const extended = slot.extended;
    if (extended === undefined) return base;
    const limits: Partial<Record<BudgetKind, number>> = { ...base };
    for (const kind of Object.keys(extended) as BudgetKind[])
      if (limits[kind] !== undefined) limits[kind] = limits[kind]! + extended[kind]!;
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
    if (slot.tokenLimit === undefined && settings.maxTokens === undefined && settings.contextShare !== undefined)
      slot.tokenLimit = tokenLimitFor(ctx.deps.model?.modelName);
    if (settings.maxTimeMs !== undefined) {
      // Re-armed on every check (it replaces itself), so a resumed run gets its deadline back.
      armDeadline(
        state,
        ctx,
        slot.startedAt + settings.maxTimeMs + (slot.extended?.time ?? 0),
        `the time budget of ${(settings.maxTimeMs + (slot.extended?.time ?? 0)) / 1000} s was reached`,
        'budget_time',
      );
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

  function measure(state: RunState, ctx: StageContext, slot: BudgetSlot): void | Promise<void> {
    if (countsTokens && unreportedTurn(state, slot))
      return estimateUnreported(state, slot).then(() => measured(state, ctx, slot));
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
    spent.costUsd =
      settings.maxCostUsd === undefined ? 0 : costUsd({ ...state.usage, inputTokens, outputTokens }, modelPrice(ctx));
    // Time waiting for a person (an approval, a limit question) is not the run's time.
    spent.timeMs = settings.maxTimeMs === undefined ? 0 : ctx.deps.clock.now() - slot.startedAt - waitedMs(state);
  }

  let thresholds: WarningThresholds | undefined;
  function farFromLimits(slot: BudgetSlot): boolean {
    const limits = limitsIn(slot);
    if (thresholds?.limits !== limits) thresholds = warningThresholds(limits, settings.warnAt);
    return quietTurn(slot.spent, thresholds, mode, slot.finalTurn);
  }

  async function nextCallCrosses(
    state: RunState,
    ctx: StageContext,
    slot: BudgetSlot,
    used: Record<BudgetKind, number>,
  ): Promise<{ kind: 'tokens' | 'cost'; reason: string } | undefined> {
    const limits = limitsOf(slot);
    if (limits.tokens === undefined && limits.cost === undefined) return undefined;
    const count = await loadTokenCounter();
    const next = {
      inputTokens: conversationTokens(count, state.messages),
      outputTokens: slot.output?.largestTurn ?? 0,
      cachedInputTokens: 0,
    };
    const tokens = next.inputTokens + next.outputTokens;
    if (limits.tokens !== undefined && used.tokens + tokens > limits.tokens) {
      return {
        kind: 'tokens',
        reason: `the next model call (about ${tokens} tokens) would cross the token budget of ${limits.tokens} (hard mode)`,
      };
    }
    if (limits.cost !== undefined && used.cost + costUsd(next, modelPrice(ctx)) > limits.cost) {
      return {
        kind: 'cost',
        reason: `the next model call (about ${tokens} tokens) would cross the cost budget of $${limits.cost} (hard mode)`,
      };
    }
    return undefined;
  }

  return { start, limitsOf, limitsIn, tokenLimitFor, measure, farFromLimits, nextCallCrosses };
}

/** A turn happened since the last check and the run's reported usage did not move: the model reported none. */
function unreportedTurn(state: RunState, slot: BudgetSlot): boolean {
  const previous = slot.lastCheck;
  return (
    previous.iteration > 0 &&
    state.iteration > previous.iteration &&
    state.usage.inputTokens + state.usage.outputTokens === previous.reportedTokens
  );
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
