// Token counting with gpt-tokenizer (o200k), loaded lazily: importing it costs ~300 ms.
import type { ChatMessage } from './types.js';

export type CountTokens = (text: string) => number;

let loading: Promise<CountTokens> | undefined;

/** Loads the tokenizer once per process; special-token text (`<|endoftext|>`) is counted, not rejected. */
export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer').then((module) => {
    const options = { disallowedSpecial: new Set<string>() };
    const countPiece = (text: string) => module.countTokens(text, options);
    return (text: string) =>
      text.length === 0 ? 0 : text.length <= pieceChars ? countPiece(text) : countLong(text, countPiece);
  });
  return loading;
}

/** BPE over one long word (a run of one letter, a base64 blob) is quadratic: long texts are counted in pieces. */
const pieceChars = 2_000;
/** Beyond this a text's count is extrapolated from its first part: BPE costs up to ~5 µs a character (a 2 MB reply, 10 s). */
const maxCountedChars = 16_000;

function countLong(text: string, countPiece: CountTokens): number {
  if (text.length <= maxCountedChars) return countInPieces(text, countPiece);
  const counted = countInPieces(text.slice(0, maxCountedChars), countPiece);
  return Math.ceil((counted * text.length) / maxCountedChars);
}

/** Pieces cut at whitespace where there is some near the end, else hard: a hard cut may add a token, never lose one. */
function countInPieces(text: string, countPiece: CountTokens): number {
  let total = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + pieceChars);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + pieceChars / 2) end = space;
    }
    total += countPiece(text.slice(start, end));
    start = end;
  }
  return total;
}

/** Role markers and separators the chat format adds around each message. */
export const messageOverheadTokens = 4;
/** Tokens that prime the assistant's reply after the last message. */
export const replyPrimingTokens = 3;

export function messageTokens(count: CountTokens, message: ChatMessage): number {
  let tokens = messageOverheadTokens + count(message.content);
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? [])
      tokens += messageOverheadTokens + count(call.name) + count(call.arguments);
  }
  if (message.role === 'tool') tokens += count(message.name);
  return tokens;
}

export function conversationTokens(count: CountTokens, messages: readonly ChatMessage[]): number {
  let total = replyPrimingTokens;
  for (const message of messages) total += messageTokens(count, message);
  return total;
}
