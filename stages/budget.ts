// budget: reads iteration, usage, messages, ctx.deps.model/clock; writes nextTurn.notes, nextTurn.withoutTools, nextTurn.limit and the `budget` slot, arms a time deadline; returns abortRun (budget_iterations | budget_tokens | budget_cost | budget_time).
import { abortRun, type Signal } from '../src/engine/signal.js';
import type { Stage, StageContext } from '../src/engine/stage.js';
import type { RunState } from '../src/engine/state.js';
import priceData from './data/model-prices.json' with { type: 'json' };
import { GuardConfigError } from './guard-config-error.js';
import { lookupModel } from './model-table.js';
import { conversationTokens, loadTokenCounter, messageTokens } from '../src/model/token-count.js';
import type {} from './turn-limit.js';
import { contextShareTokens } from './context-window.js';
import type { LimitedStage } from './limits.js';
import { armDeadline, waitBegins, waitedMs, waitEnds } from './person-wait.js';
import type {} from '../src/durable/decisions.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    budget_decided: { kind: string; action: string; by?: number };
    budget_warning: { kind: BudgetKind; used: number; limit: number; fraction: number };
    budget_exhausted: { kind: BudgetKind; used: number; limit: number };
    budget_stop: { kind: BudgetKind; limit: number };
  }
}

/** USD per million tokens. `cachedInput` defaults to `input`. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

export interface BudgetOptions {
  /** Reasoning turns (loop iterations); the last one is made without tools. */
  maxIterations?: number;
  /** Input + output tokens of the whole run. */
  maxTokens?: number;
  /** Without maxTokens: a token budget of this share of the model's context window (the defaults use 0.8). */
  contextShare?: number;
  /** Context windows per model name for contextShare, added to (and overriding) stages/data/context-windows.json. */
  contextWindows?: Readonly<Record<string, number>>;
  /** US dollars, from the price table; an unknown model's price is a configuration error. */
  maxCostUsd?: number;
  /** Wall-clock milliseconds from run start; the call in flight is aborted at the deadline. */
  maxTimeMs?: number;
  /** Fraction of any budget at which the model is told to finish (default 0.8). */
  warnAt?: number;
  /** Prices per model name, added to (and overriding) stages/data/model-prices.json. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * 'soft' (default): a spent token or cost budget grants one tools-less final turn. 'hard': the run stops before a
   * model call whose estimated tokens (its input counted locally plus the largest output of any earlier turn) would
   * cross the token or cost limit, and a spent budget grants no final turn.
   */
  mode?: BudgetMode;
}

export type BudgetMode = 'soft' | 'hard';

export type BudgetKind = 'iterations' | 'tokens' | 'cost' | 'time';

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

declare module '../src/engine/state.js' {
  interface StageSlots {
    budget: BudgetSlot;
  }
}

/** The budget stage; `start` is its optional setup-zone companion that starts the clock before any model call. */
export interface BudgetStage extends LimitedStage {
  readonly start: Stage;
}

const defaultPrices: Readonly<Record<string, ModelPrice>> = priceData.models;
const kinds: readonly BudgetKind[] = ['iterations', 'tokens', 'cost', 'time'];
const kindNames: Record<BudgetKind, string> = { iterations: 'iteration', tokens: 'token', cost: 'cost', time: 'time' };

export function priceFor(modelName: string, prices: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  return lookupModel(prices, modelName) ?? lookupModel(defaultPrices, modelName);
}

/** Cost of a usage in USD; cached input tokens are part of inputTokens and billed at the cached price. */
export function costUsd(usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number }, price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const dollarsPerMillion = (usage.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output;
  return dollarsPerMillion / 1_000_000;
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
    settings.maxTokens ?? (settings.contextShare === undefined ? undefined : contextShareTokens(modelName, settings.contextShare, settings.contextWindows));
  const limitsOf = (slot: BudgetSlot): Partial<Record<BudgetKind, number>> => (slot.tokenLimit === undefined ? configured : { ...configured, tokens: slot.tokenLimit });
  const countsTokens = settings.maxTokens !== undefined || settings.contextShare !== undefined || settings.maxCostUsd !== undefined;
  const activeKinds = kinds.filter((kind) => configured[kind] !== undefined || (kind === 'tokens' && settings.contextShare !== undefined));

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
      throw new GuardConfigError(
        `budget: no price is known for model "${modelName}", so a cost budget cannot be enforced; give one with budget({ prices: { "${modelName}": { input: 2.5, output: 10 } } }) in USD per million tokens`,
      );
    }
    return price;
  }

  /** Sync unless a turn reported no usage and must be counted with the tokenizer (loaded lazily). */
  function measure(state: RunState, ctx: StageContext, slot: BudgetSlot): Record<BudgetKind, number> | Promise<Record<BudgetKind, number>> {
    if (countsTokens && unreportedTurn(state, slot)) return estimateUnreported(state, slot).then(() => measured(state, ctx, slot));
    if (countsTokens) noteCheck(state, slot);
    return measured(state, ctx, slot);
  }

  function measured(state: RunState, ctx: StageContext, slot: BudgetSlot): Record<BudgetKind, number> {
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
    return { iterations: spent.iterations, tokens: spent.tokens, cost: spent.costUsd, time: spent.timeMs };
  }

  /** The usual turn: every active budget below its warning share, nothing to say or do (soft mode). */
  function farFromLimits(slot: BudgetSlot, used: Record<BudgetKind, number>): boolean {
    if (settings.mode === 'hard' || slot.finalTurn !== null) return false;
    for (const kind of activeKinds) {
      const base = kind === 'tokens' && slot.tokenLimit !== undefined ? slot.tokenLimit : configured[kind]!;
      if (used[kind] >= settings.warnAt * (base + (slot.extended?.[kind] ?? 0))) return false;
    }
    return true;
  }

  function check(state: RunState, ctx: StageContext): Signal | void | Promise<Signal | void> {
    const slot = start(state, ctx);
    if (ctx.zone === 'setup') return;
    const used = measure(state, ctx, slot);
    if (used instanceof Promise) return used.then((counted) => decide(state, ctx, slot, counted));
    return farFromLimits(slot, used) ? undefined : decide(state, ctx, slot, used);
  }

  function decide(state: RunState, ctx: StageContext, slot: BudgetSlot, used: Record<BudgetKind, number>): Signal | void | Promise<Signal | void> {
    const limits = limitsOf(slot);
    const limitOf = (kind: BudgetKind) => limits[kind]! + (slot.extended?.[kind] ?? 0);
    const status = (kind: BudgetKind) => used[kind] / limitOf(kind);
    const active = kinds.filter((kind) => limits[kind] !== undefined);
    const spentNow = active.find((kind) => kind === 'time' && status(kind) >= 1) ?? active.find((kind) => status(kind) >= 1);
    if (spentNow !== undefined && slot.finalTurn === null && settings.mode !== 'hard' && ctx.deps.onLimit !== undefined) {
      return askPerson(state, ctx, slot, spentNow, used);
    }
    for (const kind of active) {
      if (kind === 'time' && status(kind) >= 1) return stop(ctx, slot, kind, 'the time budget is spent');
    }
    const exhausted = active.filter((kind) => kind !== 'time' && status(kind) >= 1);
    if (settings.mode === 'hard') {
      const spent = exhausted.find((kind) => kind !== 'iterations');
      if (spent !== undefined) return stop(ctx, slot, spent, `the ${kindNames[spent]} budget is spent (hard mode: no final turn)`);
      return nextCallCrosses(state, ctx, slot, used).then((crossing) => crossing ?? spentOrWarned(state, ctx, slot, used, exhausted, active, limitOf));
    }
    return spentOrWarned(state, ctx, slot, used, exhausted, active, limitOf);
  }

  async function askPerson(state: RunState, ctx: StageContext, slot: BudgetSlot, kind: BudgetKind, used: Record<BudgetKind, number>): Promise<Signal | void> {
    const limits = limitsOf(slot);
    const limitOf = (spent: BudgetKind) => limits[spent]! + (slot.extended?.[spent] ?? 0);
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
    const active = kinds.filter((spent) => limits[spent] !== undefined);
    if (kind === 'time') return stop(ctx, slot, kind, 'the time budget is spent');
    const exhausted = active.filter((spent) => spent !== 'time' && used[spent] / limitOf(spent) >= 1);
    return spentOrWarned(state, ctx, slot, used, exhausted, active, limitOf);
  }

  function spentOrWarned(
    state: RunState,
    ctx: StageContext,
    slot: BudgetSlot,
    used: Record<BudgetKind, number>,
    exhausted: readonly BudgetKind[],
    active: readonly BudgetKind[],
    limitOf: (kind: BudgetKind) => number,
  ): Signal | void {
    if (exhausted.length > 0) {
      const kind = exhausted[0]!;
      if (slot.finalTurn !== null && slot.finalTurn.iteration < state.iteration) {
        return stop(ctx, slot, kind, `the ${kindNames[kind]} budget is spent and the final tools-less turn did not end the run`);
      }
      if (slot.finalTurn === null) {
        slot.finalTurn = { kind, iteration: state.iteration };
        state.nextTurn.withoutTools = true;
        state.nextTurn.limit = { kind: `budget_${kind}`, reason: `the ${kindNames[kind]} budget of ${spentLimit(kind, limitOf(kind))} was spent` };
        state.nextTurn.notes.push(`The ${kindNames[kind]} budget is spent. No tools are available now: give your best final answer from what you already have.`);
        ctx.emit('budget_exhausted', { kind, used: used[kind], limit: limitOf(kind) });
      }
      return;
    }
    for (const kind of active) {
      const fraction = used[kind] / limitOf(kind);
      if (fraction < settings.warnAt || slot.warned.includes(kind)) continue;
      slot.warned.push(kind);
      state.nextTurn.notes.push(`The ${kindNames[kind]} budget is ${Math.floor(fraction * 100)}% spent (${spentText(kind, used[kind], limitOf(kind))}). Finish soon: prefer answering over more tool calls.`);
      ctx.emit('budget_warning', { kind, used: used[kind], limit: limitOf(kind), fraction });
    }
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
    start: { name: 'budget-start', execute: async (state, ctx) => void start(state, ctx) },
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

type Settings = Omit<BudgetOptions, 'warnAt'> & { warnAt: number };

function validate(options: BudgetOptions): Settings {
  const fail = (problem: string): never => {
    throw new GuardConfigError(`budget: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail('options must be an object like { maxTokens: 50000 }');
  const positive = (name: keyof BudgetOptions, whole: boolean) => {
    const value = options[name];
    if (value === undefined) return;
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
      fail(`${name} must be a positive ${whole ? 'whole ' : ''}number, got ${JSON.stringify(value)}`);
    }
  };
  positive('maxIterations', true);
  positive('maxTokens', true);
  positive('maxCostUsd', false);
  positive('maxTimeMs', false);
  if (options.contextShare !== undefined && !(typeof options.contextShare === 'number' && options.contextShare > 0 && options.contextShare <= 1)) {
    fail(`contextShare must be a fraction above 0 and at most 1, got ${JSON.stringify(options.contextShare)}`);
  }
  const warnAt = options.warnAt ?? 0.8;
  if (options.mode !== undefined && options.mode !== 'soft' && options.mode !== 'hard') fail(`mode must be "soft" or "hard", got ${JSON.stringify(options.mode)}`);
  if (typeof warnAt !== 'number' || !(warnAt > 0 && warnAt <= 1)) fail(`warnAt must be a fraction above 0 and at most 1, got ${JSON.stringify(warnAt)}`);
  for (const [model, price] of Object.entries(options.prices ?? {})) {
    const valid = (value: unknown) => typeof value === 'number' && value >= 0 && Number.isFinite(value);
    if (!valid(price?.input) || !valid(price?.output) || (price.cachedInput !== undefined && !valid(price.cachedInput))) {
      fail(`the price of "${model}" must be { input, output, cachedInput? } in USD per million tokens, each a number >= 0`);
    }
  }
  if ([options.maxIterations, options.maxTokens, options.contextShare, options.maxCostUsd, options.maxTimeMs].every((limit) => limit === undefined)) {
    fail('give at least one of maxIterations, maxTokens, contextShare, maxCostUsd, maxTimeMs');
  }
  return { ...options, warnAt };
}
