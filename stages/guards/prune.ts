// prune: reads messages, deps.model (name) and deps.tools (definitions); writes condensed or removed messages and the `prune` slot; returns no signal.
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { ChatMessage } from '../../src/model/types.js';
import { contextWindowFor, defaultContextShare } from '../shared/context-window.js';
import { perModelName } from '../../src/model/model-table.js';
import { loadTokenCounter, messageTokens, replyPrimingTokens, type CountTokens } from '../../src/model/token-count.js';
import type { LimitedStage } from './limits.js';
import { tokenCeiling } from './prune-ceiling.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    context_pruned: PruneRecord;
  }
}

export interface PruneOptions {
  /** Token budget for each reasoning request; default 80% of the model's context window. */
  budgetTokens?: number;
  /** Context windows per model name, added to (and overriding) stages/shared/data/context-windows.json. */
  contextWindows?: Readonly<Record<string, number>>;
  /** Tokens kept free for the reply: the budget is at most window - reserveOutputTokens. */
  reserveOutputTokens?: number;
}

export interface PruneRecord {
  iteration: number;
  budget: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages whose content was replaced by a short stub. */
  condensed: number;
  /** Messages removed (whole tool-call groups or old assistant text). */
  removed: number;
  /** True when even the protected messages exceed the budget. */
  overBudget: boolean;
  /** Tool calls whose observations were condensed or removed, oldest first. */
  toolCallIds: string[];
}

export interface PruneSlot {
  /** Tokens of the latest request as counted before pruning. */
  lastTokens: number;
  condensed: number;
  removed: number;
  /** The latest pruning actions, newest last (at most 20). */
  history: PruneRecord[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    prune: PruneSlot;
  }
}

export { contextWindowFor, unknownModelWindow } from '../shared/context-window.js';
const stubPrefix = '[condensed by prune:';
const historyLength = 20;

/** The prune stage; `limitsInForce` says which per-request budget it keeps for a model (the limits stage reports it). */
export interface PruneStage extends LimitedStage {}

export function prune(options: PruneOptions = {}): PruneStage {
  validate(options);
  // The table lookup scans every entry: once per model name, not once per turn.
  const budgetFor = perModelName((modelName): number => {
    const window = contextWindowFor(modelName, options.contextWindows);
    let budget = options.budgetTokens ?? Math.floor(window * defaultContextShare);
    if (options.reserveOutputTokens !== undefined) budget = Math.min(budget, window - options.reserveOutputTokens);
    if (budget <= 0) {
      throw new StageloopError(
        'config',
        `prune: reserveOutputTokens (${options.reserveOutputTokens}) leaves no room in the ${window}-token window of "${modelName}"`,
      );
    }
    return budget;
  });
  return {
    name: 'prune',
    quiet: true,
    limitsInForce: (modelName) => ({ contextBudget: budgetFor(modelName) }),
    execute(state, ctx) {
      const budget = budgetFor(ctx.deps.model?.modelName);
      // A request whose every character were a token would fit: no need to load or run the tokenizer (the usual turn).
      if (tokenCeiling(state.messages, ctx) <= budget) return;
      return loadTokenCounter().then((count) => pruneTo(state, ctx, count, budget));
    },
  };
}

function pruneTo(state: RunState, ctx: StageContext, count: CountTokens, budget: number): void {
  const fixed = replyPrimingTokens + toolTokens(count, ctx);
  const sizes = state.messages.map((message) => messageTokens(count, message));
  const before = fixed + sum(sizes);
  const slot = (state.prune ??= { lastTokens: 0, condensed: 0, removed: 0, history: [] });
  slot.lastTokens = before;
  if (before <= budget) return;
  const outcome = shrink(state, count, sizes, before - budget);
  const after = fixed + sum(outcome.sizes);
  const record: PruneRecord = {
    iteration: state.iteration,
    budget,
    tokensBefore: before,
    tokensAfter: after,
    condensed: outcome.condensed,
    removed: outcome.removed,
    overBudget: after > budget,
    toolCallIds: outcome.toolCallIds,
  };
  slot.condensed += outcome.condensed;
  slot.removed += outcome.removed;
  slot.history.push(record);
  if (slot.history.length > historyLength) slot.history.splice(0, slot.history.length - historyLength);
  ctx.emit('context_pruned', { ...record });
}

/**
 * Frees `excess` tokens, oldest first: condense tool observations, then condense old assistant text, then remove whole
 * old groups (an assistant message with tool calls and all its tool replies, so the protocol stays valid). System and
 * user messages (system prompt, task, plan, notes) and the latest turn from its tool-call message on are never touched.
 */
function shrink(
  state: RunState,
  count: CountTokens,
  sizes: number[],
  excess: number,
): { sizes: number[]; condensed: number; removed: number; toolCallIds: string[] } {
  const messages = state.messages;
  const latestTurn = findLatestTurn(messages);
  let freed = 0;
  let condensed = 0;
  const touched = new Set<string>();
  const condense = (index: number, stub: string) => {
    const message = messages[index]!;
    const updated = { ...message, content: stub } as ChatMessage;
    const size = messageTokens(count, updated);
    if (size >= sizes[index]!) return;
    freed += sizes[index]! - size;
    sizes[index] = size;
    messages[index] = updated;
    condensed++;
    if (message.role === 'tool') touched.add(message.toolCallId);
  };
  for (let index = 0; index < latestTurn && freed < excess; index++) {
    const message = messages[index]!;
    if (message.role === 'tool' && !message.content.startsWith(stubPrefix))
      condense(
        index,
        `${stubPrefix} ${sizes[index]} tokens of output from "${message.name}" removed to save context; first line: ${firstLine(message.content)}]`,
      );
  }
  for (let index = 0; index < latestTurn && freed < excess; index++) {
    const message = messages[index]!;
    if (message.role === 'assistant' && message.content.length > 200 && !message.content.startsWith(stubPrefix))
      condense(index, `${stubPrefix} earlier reasoning; first line: ${firstLine(message.content)}]`);
  }
  const doomed = new Set<number>();
  for (let index = 0; index < latestTurn && freed < excess; index++) {
    const message = messages[index]!;
    if (message.role !== 'assistant') continue;
    const group = [index];
    const ids = new Set((message.toolCalls ?? []).map((call) => call.id));
    for (let reply = index + 1; reply < messages.length; reply++) {
      const candidate = messages[reply]!;
      if (candidate.role === 'tool' && ids.has(candidate.toolCallId)) group.push(reply);
    }
    if (group.some((member) => member >= latestTurn)) continue;
    for (const member of group) {
      doomed.add(member);
      freed += sizes[member]!;
      const removed = messages[member]!;
      if (removed.role === 'tool') touched.add(removed.toolCallId);
    }
  }
  state.messages = messages.filter((_, index) => !doomed.has(index));
  return {
    sizes: sizes.filter((_, index) => !doomed.has(index)),
    condensed,
    removed: doomed.size,
    toolCallIds: [...touched],
  };
}

/** Index where the latest turn begins: the last assistant message with tool calls (or the end when there is none). */
function findLatestTurn(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) return index;
  }
  return messages.length;
}

function toolTokens(count: CountTokens, ctx: StageContext): number {
  const definitions = ctx.deps.tools?.definitions() ?? [];
  return definitions.length === 0 ? 0 : count(JSON.stringify(definitions));
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 120)}...` : line;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function validate(options: PruneOptions): void {
  const positive = (name: string, value: unknown, allowZero = false) => {
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
      throw new StageloopError(
        'config',
        `prune: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} whole number of tokens, got ${JSON.stringify(value)}`,
      );
    }
  };
  positive('budgetTokens', options.budgetTokens);
  positive('reserveOutputTokens', options.reserveOutputTokens, true);
  for (const [model, window] of Object.entries(options.contextWindows ?? {}))
    positive(`the context window of "${model}"`, window);
}
