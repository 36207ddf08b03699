// memory (finalize): reads the history slot, answer, stop, turn.results and the observe slot; forgets a fact whose remember the injection guard blocked; appends this turn (with its status when it did not complete, and what it spent) to deps.sessions (remembered facts were written when remember ran), folds the oldest turns into the summary past the budget; writes the memory slot; returns no signal.
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { ToolOutcome } from '../../src/engine/tool-port.js';
import { loadTokenCounter } from '../../src/model/token-count.js';
import { compactionMessages, extractiveSummary, renderHistory, toolAccount } from '../../src/sessions/render.js';
import { turnUsage } from '../../src/sessions/turn-usage.js';
import { sessionScope, type SessionScope, type SessionStore, type TurnRecord } from '../../src/sessions/types.js';
import { messageOf } from '../../src/common/error-message.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    session_compacted: { folded: number; kept: number; tokensBefore: number; tokensAfter: number; summarizer: string };
  }
}
import { sessionsFix } from './history.js';
import { skipStage } from '../shared/stage-skipped.js';
import type {} from '../loop/observe-slot.js';
import { contextWindowFor } from '../shared/context-window.js';

export interface MemoryOptions {
  /** History budget in tokens (summary and turns as rendered); default `budgetFraction` of the model's context window. */
  budgetTokens?: number;
  /** Share of the context window the history may use when no budgetTokens is given (default 0.25). */
  budgetFraction?: number;
  /** 'model' (default): one model call writes the new summary; 'extractive': kept lines of the folded turns, no call. */
  summarizer?: 'model' | 'extractive';
  contextWindows?: Readonly<Record<string, number>>;
}

export interface MemorySlot {
  /** The seq of this turn in the session, when it was kept. */
  turn?: number;
  /** Facts this stage saved: only in runs recorded when it read them from remember's results at the end. */
  facts?: number;
  compaction?: {
    folded: number[];
    tokensBefore: number;
    tokensAfter: number;
    summarizer: 'model' | 'extractive';
    modelError?: string;
  };
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    memory: MemorySlot;
  }
}

export function memory(options: MemoryOptions = {}): Stage {
  const fraction = options.budgetFraction ?? 0.25;
  if (!(fraction > 0 && fraction <= 1))
    throw new RangeError(`memory: budgetFraction must be in (0, 1], got ${fraction}`);
  if (options.budgetTokens !== undefined && !(Number.isInteger(options.budgetTokens) && options.budgetTokens > 0)) {
    throw new RangeError(`memory: budgetTokens must be a whole number above 0, got ${options.budgetTokens}`);
  }
  return {
    name: 'memory',
    async execute(state, ctx) {
      const slot = state.history;
      const store = ctx.deps.sessions;
      // A run cancelled before history loaded is still a turn of its session.
      const session =
        slot ?? (state.input.session === undefined ? undefined : sessionScope(state.input.session, state.input.user));
      if (session === undefined) return;
      if (store === undefined)
        return skipStage(ctx, 'deps.sessions', 'this turn is not kept in its session', sessionsFix);
      const scope: SessionScope = { user: session.user, session: session.session };
      const status = state.stop?.status;
      const results = state.observe?.results ?? [];
      const memorySlot: MemorySlot = {};
      state.memory = memorySlot;
      const now = ctx.deps.clock.now();
      if (state.stop?.kind === 'guard_injection') await forgetBlockedFacts(state.turn.results, store, scope);
      // A paused run keeps its turn for when it ends. Every other turn is kept, a cancelled or failed one too: with its status and whatever answer it had.
      if (status === 'interrupted') return;
      const turnStatus = status === undefined || status === 'completed' ? undefined : status;
      const turn = await store.appendTurn(scope, {
        runId: state.runId,
        task: state.input.task,
        answer: state.answer ?? '',
        tools: toolAccount(results),
        at: now,
        // What this run spent in all (a resumed run's total: its record replaces the one it left before a crash).
        usage: turnUsage(state.usage, ctx.deps.model?.modelName),
        ...(turnStatus === undefined ? {} : { status: turnStatus }),
      });
      memorySlot.turn = turn.seq;
      if (slot === undefined) return;
      const budget =
        options.budgetTokens ??
        Math.floor(contextWindowFor(ctx.deps.model?.modelName, options.contextWindows) * fraction);
      await compactIfNeeded(
        store,
        scope,
        [...slot.turns, turn],
        slot.summary,
        budget,
        memorySlot,
        ctx,
        options.summarizer ?? 'model',
      );
    },
  };
}

/** A remember call writes its fact as it runs; one whose result the injection guard then blocked is not kept. */
async function forgetBlockedFacts(
  results: readonly ToolOutcome[],
  store: SessionStore,
  scope: SessionScope,
): Promise<void> {
  const facts = await store.listFacts(scope);
  for (const { call, result } of results) {
    if (call.name !== 'remember' || !result.ok) continue;
    const asked = parseRemember(call.arguments);
    if (asked === undefined) continue;
    const kept = facts.find((fact) => fact.key === asked.key);
    // Only the blocked value goes: a fact another run wrote since stays.
    if (kept !== undefined && kept.value === asked.value) await store.deleteFact(scope, asked.key);
  }
}

function parseRemember(text: string): { key: string; value: string } | undefined {
  try {
    const parsed = JSON.parse(text) as { key?: unknown; value?: unknown };
    return typeof parsed.key === 'string' && typeof parsed.value === 'string'
      ? { key: parsed.key, value: parsed.value }
      : undefined;
  } catch {
    return undefined;
  }
}

async function compactIfNeeded(
  store: SessionStore,
  scope: SessionScope,
  turns: TurnRecord[],
  summary: string,
  budget: number,
  slot: MemorySlot,
  ctx: StageContext,
  summarizer: 'model' | 'extractive',
): Promise<void> {
  // A token is at least one character: a history no longer than the budget in characters fits without the tokenizer.
  if (renderHistory(summary, turns).length <= budget) return;
  const count = await loadTokenCounter();
  const tokensBefore = count(renderHistory(summary, turns));
  if (tokensBefore <= budget) return;
  // Whole turns only, oldest first, until the rest fills at most half the budget; the latest turn always stays.
  if (turns.length < 2) return;
  let keep = turns.length - 1;
  while (keep > 1 && count(renderHistory(summary, turns.slice(-keep))) > budget / 2) keep -= 1;
  const folded = turns.slice(0, turns.length - keep);
  const remaining = turns.slice(folded.length);
  let used: 'model' | 'extractive' = summarizer;
  let modelError: string | undefined;
  let next: string | undefined;
  if (summarizer === 'model' && ctx.deps.model !== undefined) {
    try {
      const reply = await ctx.deps.model.chat(
        { purpose: 'compact', messages: compactionMessages(summary, folded) },
        ctx.signal,
      );
      next = reply.content.trim() || undefined;
      if (next === undefined) modelError = 'the model returned an empty summary';
    } catch (error) {
      modelError = messageOf(error);
    }
  }
  if (next === undefined) {
    // No model, or it failed: the extractive summary loses no turn either.
    used = 'extractive';
    next = extractiveSummary(summary, folded, budget * 4);
  }
  await store.compact(
    scope,
    folded.map((turn) => turn.seq),
    next,
  );
  const tokensAfter = count(renderHistory(next, remaining));
  slot.compaction = {
    folded: folded.map((turn) => turn.seq),
    tokensBefore,
    tokensAfter,
    summarizer: used,
    ...(modelError === undefined ? {} : { modelError }),
  };
  ctx.emit('session_compacted', {
    folded: folded.length,
    kept: remaining.length,
    tokensBefore,
    tokensAfter,
    summarizer: used,
  });
}
