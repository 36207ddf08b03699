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

/** One agent a run was handed to. */
export interface HandoffLink {
  agent: string;
  /** The target's run id, `<run id>.<call id>` (recorded in the same store when the run is). */
  runId: string;
}

/** Written by the handoff stage of the run that handed off. */
export interface HandoffSlot extends HandoffLink {
  /** Every agent the run went to, this one first: a target that handed off in turn adds the agents it went to. */
  chain?: HandoffLink[];
}

declare module '../engine/state.js' {
  interface StageSlots {
    handoff: HandoffSlot;
  }
}

/** The agent whose answer this is, when the run handed off; undefined when the run answered itself. */
export function answeredBy(result: { state: RunState }): string | undefined {
  return handoffChain(result.state.handoff).at(-1)?.agent;
}

/** The agents a run went to, in order (one without a chain, as an older record has, went to its target only). */
export function handoffChain(slot: HandoffSlot | undefined): HandoffLink[] {
  if (slot === undefined) return [];
  return slot.chain ?? [{ agent: slot.agent, runId: slot.runId }];
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
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value.content !== 'string')
    return false;
  if (value.role === 'user' || value.role === 'assistant') return true;
  return value.role === 'tool' && typeof value.toolCallId === 'string' && typeof value.name === 'string';
}
