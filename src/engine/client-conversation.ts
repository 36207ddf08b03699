// The conversation a client sent with a run (a Chat Completions request's messages before the last user message),
// kept in the run's input as structured messages (`options.conversation`, recorded with the run) instead of being
// flattened into the task text: a user message that types "system: ..." stays a user message, and only the client's
// real system messages reach the system prompt.
import type { JsonObject, JsonValue } from '../common/json.js';
import type { ChatMessage } from '../model/types.js';
import type { RunInput } from './state.js';

/** One message of the client's conversation, as recorded. */
export interface ClientMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The run input's options for a client conversation (empty when there is none). */
export function conversationOption(messages: readonly ClientMessage[]): JsonObject {
  return messages.length === 0 ? {} : { conversation: messages.map(({ role, content }) => ({ role, content })) };
}

/** The client's system texts (for the system prompt) and its earlier turns (as messages); empty without any. */
export function clientConversation(input: RunInput): { system: readonly string[]; turns: readonly ChatMessage[] } {
  const recorded = input.options?.conversation;
  // The usual run has none: one shared empty answer, no arrays made per run.
  if (!Array.isArray(recorded)) return noConversation;
  const messages = recorded.filter(isClientMessage);
  return {
    system: messages.filter((message) => message.role === 'system').map((message) => message.content),
    turns: messages.flatMap((message): ChatMessage[] =>
      message.role === 'system' ? [] : [{ role: message.role, content: message.content }],
    ),
  };
}

const noConversation = Object.freeze({ system: Object.freeze([]), turns: Object.freeze([]) });

/** The system prompt with the client's own system messages after it, marked as theirs. */
export function withClientSystem(systemPrompt: string, input: RunInput): string {
  const { system } = clientConversation(input);
  return system.length === 0
    ? systemPrompt
    : `${systemPrompt}\n\nInstructions from the application:\n${system.join('\n\n')}`;
}

function isClientMessage(value: JsonValue): value is JsonObject & ClientMessage {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof value.content === 'string' &&
    (value.role === 'system' || value.role === 'user' || value.role === 'assistant')
  );
}
