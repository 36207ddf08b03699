// What a handoff leaves in the runs it joins: the conversation the target's run is given (in its input's
// `options.handoff`, so it is recorded with the run), and the handoff slot of the run that handed off.
import type { JsonValue } from '../common/json.js';
import type { RunInput, RunState } from '../engine/state.js';
import type { ChatMessage } from '../model/types.js';

/** Handoff tools are named `transfer_to_NAME`: the handoff stage knows them by it. */
export const HANDOFF_TOOL_PREFIX = 'transfer_to_';

/** The target run's `input.options.handoff`. */
export interface HandedConversation {
  /** The agent path of the run that handed off. */
  from: string;
  messages: ChatMessage[];
}

/** Written by the handoff stage of the run that handed off. */
export interface HandoffSlot {
  /** The agent the run was handed to (its answer is the run's answer). */
  agent: string;
  /** The target's run id, `<run id>.<call id>` (recorded in the same store when the run is). */
  runId: string;
}

declare module '../engine/state.js' {
  interface StageSlots {
    handoff: HandoffSlot;
  }
}

/** The agent whose answer this is, when the run handed off; undefined when the run answered itself. */
export function answeredBy(result: { state: RunState }): string | undefined {
  return result.state.handoff?.agent;
}

/** The conversation a run was handed with, when it was and the messages are well formed; else undefined. */
export function handedMessages(input: RunInput): ChatMessage[] | undefined {
  const handed = input.options?.handoff;
  if (handed === null || typeof handed !== 'object' || Array.isArray(handed)) return undefined;
  const messages = handed.messages;
  if (!Array.isArray(messages) || messages.length === 0 || !messages.every(isMessage)) return undefined;
  return messages as unknown as ChatMessage[];
}

function isMessage(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value.content !== 'string') return false;
  if (value.role === 'user' || value.role === 'assistant') return true;
  return value.role === 'tool' && typeof value.toolCallId === 'string' && typeof value.name === 'string';
}
