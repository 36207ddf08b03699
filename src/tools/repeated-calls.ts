// The tool gate's repeat rule: a call (tool + canonical arguments) that already failed `limit - 1` times in a row
// waits for a person before it runs again (the repeated-call guard's `onRepeat: 'ask'`). The streak is the run's
// state, written by act from the results the gate marked (`streak`), so a replay, served those results, writes it
// the same; a success of the call ends its streak, a person's rejection extends it.
import { createHash } from 'node:crypto';
import type { ToolCall } from '../model/types.js';
import type { RunState } from '../engine/state.js';
import type { ToolResult } from '../engine/tool-port.js';
import { runStateOf } from './gate-state.js';

export interface RepeatedCallEntry {
  tool: string;
  /** Failures of this exact call in a row (a success of it ends the streak); rejections count as failures. */
  failures: number;
  /** Times a person rejected it. */
  refused: number;
  /** The error of its latest failed run. */
  failure: string | null;
}

export interface RepeatedCallsSlot {
  /** Calls with a failure streak, keyed by call fingerprint (see callFingerprint). */
  calls: Record<string, RepeatedCallEntry>;
  /** Rejections of repeated calls in the run. */
  refusals: number;
}

declare module '../engine/state.js' {
  interface StageSlots {
    repeatedCalls: RepeatedCallsSlot;
  }
}

/** JSON with object keys sorted at every level, so `{"b":1,"a":2}` and `{ "a": 2, "b": 1 }` are one call. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
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

/** The streak of this call when it has one (the run's, whichever plan step asks). */
export function repeatedCall(state: RunState, call: ToolCall): RepeatedCallEntry | undefined {
  const slot = runStateOf(state).repeatedCalls;
  return slot === undefined || Object.keys(slot.calls).length === 0 ? undefined : slot.calls[callFingerprint(call)];
}

/** A failure the gate counts toward the call's streak (not a refusal, nor a call still waiting). */
export function withStreak(result: ToolResult): ToolResult {
  return result.ok || result.error.kind === 'refused' || result.error.kind === 'paused'
    ? result
    : { ...result, streak: true };
}

/** act, for each result it records: a marked failure extends the call's streak, a success ends it. */
export function noteStreak(state: RunState, call: ToolCall, result: ToolResult): void {
  if (result.ok) {
    const slot = runStateOf(state).repeatedCalls;
    if (slot !== undefined && Object.keys(slot.calls).length > 0) delete slot.calls[callFingerprint(call)];
    return;
  }
  if (result.streak !== true) return;
  const entry = entryOf(state, call);
  entry.failures += 1;
  entry.failure = result.error.message.slice(0, 200);
}

/** act, when a person rejected a call the gate held: a call with a streak has it extended and counted as refused. */
export function noteRejected(state: RunState, call: ToolCall): void {
  if (repeatedCall(state, call) === undefined) return;
  const entry = entryOf(state, call);
  entry.failures += 1;
  entry.refused += 1;
  runStateOf(state).repeatedCalls!.refusals += 1;
}

function entryOf(state: RunState, call: ToolCall): RepeatedCallEntry {
  const slot = (runStateOf(state).repeatedCalls ??= { calls: {}, refusals: 0 });
  return (slot.calls[callFingerprint(call)] ??= { tool: call.name, failures: 0, refused: 0, failure: null });
}

/** Why this call waits for a person under a repeat rule of `limit`, or undefined when it may run. */
export function repeatReason(entry: RepeatedCallEntry | undefined, limit: number): string | undefined {
  if (entry === undefined || entry.failures < limit - 1) return undefined;
  const last = entry.failure === null ? '' : ` (last error: ${entry.failure})`;
  return `a repeated, identical call to ${entry.tool} that already failed ${entry.failures} times in a row${last}`;
}
