// The rendered context of one reasoning turn: the conversation as think sends it, with the tool results of older rounds shortened (think's helper; state.messages keeps the whole transcript).
import type { ChatMessage } from '../../src/model/types.js';

export interface TurnContextOptions {
  /** Tool rounds (an assistant message with tool calls and its replies) whose results are sent in full (default 2). */
  recentRounds?: number;
  /** An older tool result longer than this many characters is shortened to its beginning and a marker (default 600). */
  olderResultChars?: number;
}

/** The settings one think stage renders with, and its memo of shortened messages. */
export interface TurnContext {
  readonly recentRounds: number;
  readonly olderResultChars: number;
  /** Shortened copies by original message: the same object every turn, so the journal stores each once. */
  readonly shortened: WeakMap<ChatMessage, ChatMessage>;
}

export const shortenedMarker = '[shortened older tool result:';

export function turnContext(options: TurnContextOptions = {}): TurnContext {
  const recentRounds = options.recentRounds ?? 2;
  const olderResultChars = options.olderResultChars ?? 600;
  if (
    !(Number.isInteger(recentRounds) && recentRounds >= 1) ||
    !(Number.isInteger(olderResultChars) && olderResultChars >= 100)
  ) {
    throw new RangeError(
      `think: context.recentRounds must be a whole number of at least 1 and context.olderResultChars one of at least 100, got ${recentRounds} and ${olderResultChars}`,
    );
  }
  return Object.freeze({ recentRounds, olderResultChars, shortened: new WeakMap() });
}

/**
 * The messages a turn sends: system prompt, session turns, task or step brief, notes and answers as they are (their
 * roles kept), the latest `recentRounds` tool rounds in full, and older tool results over the limit shortened with a
 * marker. Returns `messages` itself when nothing needs shortening (most turns of a short run).
 */
export function renderTurnMessages(messages: readonly ChatMessage[], context: TurnContext): readonly ChatMessage[] {
  const boundary = recentBoundary(messages, context.recentRounds);
  let rendered: ChatMessage[] | undefined;
  for (let index = 0; index < boundary; index++) {
    const message = messages[index]!;
    if (message.role !== 'tool' || message.content.length <= context.olderResultChars) continue;
    rendered ??= messages.slice();
    rendered[index] = shortenedCopy(message, context);
  }
  return rendered ?? messages;
}

/** Index of the oldest of the latest `rounds` assistant messages with tool calls (0 when there are fewer). */
function recentBoundary(messages: readonly ChatMessage[], rounds: number): number {
  let seen = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (
      message.role === 'assistant' &&
      message.toolCalls !== undefined &&
      message.toolCalls.length > 0 &&
      ++seen === rounds
    )
      return index;
  }
  return 0;
}

function shortenedCopy(message: Extract<ChatMessage, { role: 'tool' }>, context: TurnContext): ChatMessage {
  const known = context.shortened.get(message);
  if (known !== undefined) return known;
  const content = message.content;
  // A result shown between untrusted-data marks keeps its closing mark, so the model still reads it as data.
  const lastBreak = content.lastIndexOf('\n');
  const closing = lastBreak > 0 && content.startsWith('<<', lastBreak + 1) ? content.slice(lastBreak) : '';
  const head = content.slice(0, Math.max(0, context.olderResultChars - closing.length - 120));
  const dropped = content.length - head.length - closing.length;
  const copy: ChatMessage = {
    ...message,
    content: `${head}\n${shortenedMarker} ${dropped} more characters of this result from "${message.name}" are left out to save context; the full result is in the run's record]${closing}`,
  };
  context.shortened.set(message, copy);
  return copy;
}
