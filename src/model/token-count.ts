// Token counting with gpt-tokenizer (o200k), loaded lazily: importing it costs ~300 ms.
import type { ChatMessage } from './types.js';

export type CountTokens = (text: string) => number;

let loading: Promise<CountTokens> | undefined;

/** Loads the tokenizer once per process; special-token text (`<|endoftext|>`) is counted, not rejected. */
export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer').then((module) => {
    const options = { disallowedSpecial: new Set<string>() };
    return (text: string) => (text.length === 0 ? 0 : module.countTokens(text, options));
  });
  return loading;
}

/** Role markers and separators the chat format adds around each message. */
export const messageOverheadTokens = 4;
/** Tokens that prime the assistant's reply after the last message. */
export const replyPrimingTokens = 3;

export function messageTokens(count: CountTokens, message: ChatMessage): number {
  let tokens = messageOverheadTokens + count(message.content);
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) tokens += messageOverheadTokens + count(call.name) + count(call.arguments);
  }
  if (message.role === 'tool') tokens += count(message.name);
  return tokens;
}

export function conversationTokens(count: CountTokens, messages: readonly ChatMessage[]): number {
  let total = replyPrimingTokens;
  for (const message of messages) total += messageTokens(count, message);
  return total;
}
