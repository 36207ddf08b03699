// loop-guard: reads turn.toolCalls and turn.results; writes refusals into turn.results and the `loopGuard` slot; returns abortRun (loop_detected) when the model asks again for a call it was refused (or, onRepeat 'ask', a call a person rejected: the tool gate holds repeated calls for a person, repeated-calls.ts).
import { abortRun, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolOutcome } from '../../src/engine/tool-port.js';
import type { LimitedStage } from './limits.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { callFingerprint, repeatedCall } from '../../src/tools/repeated-calls.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    loop_refused: { tool: string; callId: string; requested: number; failedBefore: boolean };
  }
}

export interface LoopGuardOptions {
  /** The same call (tool + canonical arguments) is refused when it already failed this many times less one in a row (default 3). */
  limit?: number;
  /**
   * What happens at that call: 'refuse' (default) tells the model to take another path; 'ask' leaves it to the tool
   * gate, whose repeat rule (the ToolRegistry's `approvals: { repeatedCalls: { limit } }`, which the CLI sets) holds
   * it for a person as any approval: approved, the call runs once more; rejected, the model reads the person's message
   * and asking again ends the run.
   */
  onRepeat?: 'refuse' | 'ask';
}

export interface LoopGuardEntry {
  tool: string;
  /** Failures of this exact call in a row (a success of it ends the streak); refusals count as failures. */
  failures: number;
  refused: number;
  /** The error of its latest failed run. */
  failure: string | null;
}

export interface LoopGuardSlot {
  /** Calls with a failure streak, keyed by call fingerprint (see callFingerprint). */
  calls: Record<string, LoopGuardEntry>;
  refusals: number;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    loopGuard: LoopGuardSlot;
  }
}

/** The loop guard (before act); `history` is its companion after act that records which calls failed. */
export interface LoopGuardStage extends LimitedStage {
  readonly history: Stage;
}

export { canonicalJson, callFingerprint } from '../../src/tools/repeated-calls.js';

export function loopGuard(options: LoopGuardOptions = {}): LoopGuardStage {
  const limit = options.limit ?? 3;
  const onRepeat = options.onRepeat ?? 'refuse';
  if (!Number.isInteger(limit) || limit < 2) {
    throw new StageloopError(
      'config',
      `loopGuard: limit must be a whole number of at least 2 (the first call always runs), got ${JSON.stringify(options.limit)}`,
    );
  }
  if (onRepeat !== 'refuse' && onRepeat !== 'ask') {
    throw new StageloopError(
      'config',
      `loopGuard: onRepeat must be "refuse" or "ask", got ${JSON.stringify(options.onRepeat)}`,
    );
  }

  function guard(state: RunState, ctx: StageContext): Signal | void {
    if (onRepeat === 'ask') return ask(state);
    const slot = state.loopGuard;
    // Nothing has failed yet (the usual turn): no call needs a fingerprint.
    if (slot === undefined || (slot.refusals === 0 && Object.keys(slot.calls).length === 0)) return;
    return refuse(state, ctx, slot);
  }

  function refuse(state: RunState, ctx: StageContext, slot: LoopGuardSlot): Signal | void {
    const decided = new Set(state.turn.results.map((outcome) => outcome.call.id));
    let repeatedAfterRefusal: string | undefined;
    for (const call of state.turn.toolCalls) {
      if (decided.has(call.id)) continue;
      const entry = repeatedEntry(slot, call);
      if (entry === undefined) continue;
      if (entry.refused > 0) repeatedAfterRefusal ??= call.name;
      entry.refused += 1;
      entry.failures += 1;
      slot.refusals += 1;
      state.turn.results.push(refusal(call, refusalText(entry)));
      ctx.emit('loop_refused', { tool: call.name, callId: call.id, requested: entry.failures, failedBefore: true });
    }
    return stopFor(slot, repeatedAfterRefusal);
  }

  /** The entry of a call that reached the limit, or undefined when the call may run. */
  function repeatedEntry(slot: LoopGuardSlot, call: ToolCall): LoopGuardEntry | undefined {
    const entry = slot.calls[callFingerprint(call)];
    return entry === undefined || entry.failures < limit - 1 ? undefined : entry;
  }

  function stopFor(slot: LoopGuardSlot, repeatedAfterRefusal: string | undefined): Signal | void {
    if (repeatedAfterRefusal !== undefined) {
      return abortRun(
        `the model asked again for a repeated, identical call to "${repeatedAfterRefusal}" after it had been refused`,
        'loop_detected',
      );
    }
    if (slot.refusals >= limit) {
      return abortRun(`the model kept repeating failing tool calls (${slot.refusals} refused)`, 'loop_detected');
    }
  }

  /** onRepeat 'ask': the tool gate holds a repeated call for a person (its repeat rule, the streak act records);
   * this stage ends the run when the model asks again for a call a person rejected. */
  function ask(state: RunState): Signal | void {
    const slot = state.repeatedCalls;
    if (slot === undefined) return;
    const decided = new Set(state.turn.results.map((outcome) => outcome.call.id));
    const again = state.turn.toolCalls.find((call) => {
      const entry = decided.has(call.id) ? undefined : repeatedCall(state, call);
      return entry !== undefined && entry.refused > 0 && entry.failures >= limit - 1;
    });
    return stopFor({ calls: {}, refusals: slot.refusals }, again?.name);
  }

  /** After act: a failed call starts or extends its streak; a success of the same call ends it. */
  function history(state: RunState): void {
    if (onRepeat === 'ask') return checkGateCounts(state);
    let slot = state.loopGuard;
    for (const { call, result } of state.turn.results) {
      if (result.ok) {
        if (slot !== undefined && Object.keys(slot.calls).length > 0) delete slot.calls[callFingerprint(call)];
        continue;
      }
      // Refusals were counted when they were made.
      if (result.error.kind === 'refused') continue;
      slot ??= state.loopGuard = { calls: {}, refusals: 0 };
      const key = callFingerprint(call);
      const entry = (slot.calls[key] ??= { tool: call.name, failures: 0, refused: 0, failure: null });
      entry.failures += 1;
      entry.failure = result.error.message.slice(0, 200);
    }
  }

  return {
    name: 'loop-guard',
    quiet: true,
    execute: guard,
    limitsInForce: () => ({ loopLimit: limit }),
    history: { name: 'loop-guard-history', quiet: true, execute: history },
  };
}

/** onRepeat 'ask' is the gate's to enforce: a failure it did not count means its tool box has no repeat rule. */
function checkGateCounts(state: RunState): void {
  const uncounted = state.turn.results.find(
    ({ result }) =>
      !result.ok && result.streak !== true && result.error.kind !== 'refused' && result.error.kind !== 'paused',
  );
  if (uncounted === undefined) return;
  throw new StageloopError(
    'config',
    `loopGuard: onRepeat 'ask' is decided by the tool gate, but the tools of this run have no repeat rule: give the ToolRegistry the option approvals: { repeatedCalls: { limit } }`,
  );
}

function refusalText(entry: LoopGuardEntry): string {
  const times = entry.failures - 1;
  return (
    `Not run: this is a repeated, identical call to ${entry.tool} (same arguments) that already failed ${times} times in a row` +
    `${entry.failure === null ? '' : ` (last error: ${entry.failure})`}. It would fail again. Take another path: change the arguments, ` +
    'use another tool, or answer with what you already have. Asking for this same call again ends the run.'
  );
}

function refusal(call: ToolCall, message: string): ToolOutcome {
  return { call, result: { ok: false, error: { kind: 'refused', message, retryable: false }, durationMs: 0 } };
}
