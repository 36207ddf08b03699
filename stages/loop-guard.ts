// loop-guard: reads turn.toolCalls and turn.results; writes refusals into turn.results and the `loopGuard` slot; returns abortRun (loop_detected) when the model repeats a call it was already refused.
import { createHash } from 'node:crypto';
import { abortRun, type Signal } from '../src/engine/signal.js';
import type { Stage, StageContext } from '../src/engine/stage.js';
import type { RunState } from '../src/engine/state.js';
import type { ToolCall } from '../src/model/types.js';
import type { ToolOutcome } from '../src/tools/types.js';
import { GuardConfigError } from './guard-config-error.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    loop_refused: { tool: string; callId: string; requested: number; failedBefore: boolean };
  }
}

export interface LoopGuardOptions {
  /** The same call (tool + canonical arguments) is refused when requested this many times in a run (default 3). */
  limit?: number;
}

export interface LoopGuardEntry {
  tool: string;
  /** Times the model asked for this exact call, refused ones included. */
  requested: number;
  refused: number;
  /** The error of the last run of this call when it failed for good (not retryable); null otherwise. */
  failure: string | null;
}

export interface LoopGuardSlot {
  /** Keyed by call fingerprint (see callFingerprint). */
  calls: Record<string, LoopGuardEntry>;
  refusals: number;
  /** Calls let through this turn, for the history stage to learn which of them failed. */
  pending: Array<{ id: string; key: string }>;
}

declare module '../src/engine/state.js' {
  interface StageSlots {
    loopGuard: LoopGuardSlot;
  }
}

/** The loop guard (before act); `history` is its companion after act that records which calls failed. */
export interface LoopGuardStage extends Stage {
  readonly history: Stage;
}

/** JSON with object keys sorted at every level, so `{"b":1,"a":2}` and `{ "a": 2, "b": 1 }` are one call. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `tool#hash` of the tool name and its canonical arguments; unparsable arguments are compared as trimmed raw text. */
export function callFingerprint(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  let argumentsText: string;
  try {
    argumentsText = `json:${canonicalJson(JSON.parse(call.arguments))}`;
  } catch {
    argumentsText = `raw:${call.arguments.trim()}`;
  }
  const hash = createHash('sha256').update(call.name).update('\u0000').update(argumentsText).digest('hex').slice(0, 16);
  return `${call.name}#${hash}`;
}

export function loopGuard(options: LoopGuardOptions = {}): LoopGuardStage {
  const limit = options.limit ?? 3;
  if (!Number.isInteger(limit) || limit < 2) {
    throw new GuardConfigError(`loopGuard: limit must be a whole number of at least 2 (the first call always runs), got ${JSON.stringify(options.limit)}`);
  }

  function guard(state: RunState, ctx: StageContext): Signal | void {
    const slot = (state.loopGuard ??= { calls: {}, refusals: 0, pending: [] });
    slot.pending = [];
    const decided = new Set(state.turn.results.map((outcome) => outcome.call.id));
    let repeatedAfterRefusal: string | undefined;
    for (const call of state.turn.toolCalls) {
      if (decided.has(call.id)) continue;
      const key = callFingerprint(call);
      const entry = (slot.calls[key] ??= { tool: call.name, requested: 0, refused: 0, failure: null });
      entry.requested += 1;
      if (entry.refused > 0) repeatedAfterRefusal ??= call.name;
      const reason = refusalReason(entry, limit);
      if (reason === undefined) {
        slot.pending.push({ id: call.id, key });
        continue;
      }
      entry.refused += 1;
      slot.refusals += 1;
      state.turn.results.push(refusal(call, reason));
      ctx.emit('loop_refused', { tool: call.name, callId: call.id, requested: entry.requested, failedBefore: entry.failure !== null });
    }
    if (repeatedAfterRefusal !== undefined) {
      return abortRun(`the model asked again for a call to "${repeatedAfterRefusal}" it had been refused for repeating`, 'loop_detected');
    }
    if (slot.refusals >= limit) {
      return abortRun(`the model kept repeating tool calls (${slot.refusals} refused)`, 'loop_detected');
    }
  }

  /** After act: a call that failed for good is refused if asked for again; a success clears an earlier failure. */
  async function history(state: RunState): Promise<void> {
    const slot = state.loopGuard;
    if (slot === undefined || slot.pending.length === 0) return;
    const keys = new Map(slot.pending.map((pending) => [pending.id, pending.key]));
    for (const { call, result } of state.turn.results) {
      const entry = slot.calls[keys.get(call.id) ?? ''];
      if (entry === undefined) continue;
      entry.failure = result.ok || result.error.retryable ? null : result.error.message.slice(0, 200);
    }
    slot.pending = [];
  }

  return { name: 'loop-guard', execute: guard, history: { name: 'loop-guard-history', execute: history } };
}

function refusalReason(entry: LoopGuardEntry, limit: number): string | undefined {
  const change = 'Change your approach: use different arguments or another tool, or answer with what you already have.';
  if (entry.failure !== null) {
    return `Not run: this exact call to ${entry.tool} already failed (${entry.failure}) and would fail again. ${change}`;
  }
  if (entry.requested >= limit) {
    return `Not run: you already called ${entry.tool} with these same arguments ${entry.requested - 1} times in this run; repeating it will not give a new result. ${change}`;
  }
  return undefined;
}

function refusal(call: ToolCall, message: string): ToolOutcome {
  return { call, result: { ok: false, error: { kind: 'refused', message, retryable: false }, durationMs: 0 } };
}
