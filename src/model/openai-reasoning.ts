// What Chat Completions servers send besides plain text: content as an array of parts (Mistral's thinking parts), the
// reasoning fields (reasoning_content, reasoning, reasoning_details) and the legacy function_call; and which of them a
// server needs back on the next request.
import type { JsonObject, JsonValue } from '../common/json.js';
import { ModelError, type ChatMessage } from './types.js';

/** A message's (or a streamed delta's) text and reasoning, read from every shape servers use. */
export interface ReadParts {
  text: string;
  reasoning: string;
}

/** The fields of an assistant message (or delta) that carry reasoning. */
export interface ReasoningFields {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  reasoning_details?: unknown;
}

/** Text and reasoning of one message or delta; anything but text, null or an array of parts is refused, never coerced. */
export function readParts(message: ReasoningFields, url: string, field: string): ReadParts {
  const parts: ReadParts = { text: '', reasoning: '' };
  const content = message.content;
  if (Array.isArray(content)) for (const part of content) addPart(parts, part);
  else if (content !== undefined && content !== null) {
    if (typeof content !== 'string') throw notText(url, field, content);
    parts.text = content;
  }
  // One reasoning source a message: servers that send several (OpenRouter) repeat the same text in each.
  const details = detailsText(message.reasoning_details);
  parts.reasoning +=
    stringOr(message.reasoning_content) ?? stringOr(message.reasoning) ?? (details === '' ? undefined : details) ?? '';
  return parts;
}

/** A content part: text, or thinking (Mistral: `thinking` is text or an array of text parts). Others (images...) are skipped. */
function addPart(parts: ReadParts, part: unknown): void {
  if (typeof part === 'string') {
    parts.text += part;
    return;
  }
  if (typeof part !== 'object' || part === null) return;
  const { type, text, thinking } = part as { type?: unknown; text?: unknown; thinking?: unknown };
  if (type === 'thinking' || type === 'reasoning') {
    if (typeof thinking === 'string') parts.reasoning += thinking;
    else if (Array.isArray(thinking)) for (const piece of thinking) parts.reasoning += textField(piece);
    else if (typeof text === 'string') parts.reasoning += text;
    return;
  }
  if (typeof text === 'string' && (type === undefined || type === 'text' || type === 'output_text')) parts.text += text;
}

function textField(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = typeof value === 'object' && value !== null ? (value as { text?: unknown }).text : undefined;
  return typeof text === 'string' ? text : '';
}

/** OpenRouter's reasoning_details: readable text is in `text` (reasoning.text) or `summary` (reasoning.summary). */
function detailsText(details: unknown): string {
  if (!Array.isArray(details)) return '';
  let text = '';
  for (const detail of details) {
    if (typeof detail !== 'object' || detail === null) continue;
    const { text: body, summary } = detail as { text?: unknown; summary?: unknown };
    text += typeof body === 'string' ? body : typeof summary === 'string' ? summary : '';
  }
  return text;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * What a server needs back with its reply, as fields of the assistant message: reasoning_details (OpenRouter, verbatim,
 * signatures and encrypted parts included) or reasoning_content (DeepSeek, Kimi, Qwen). Not `reasoning`: Groq refuses it.
 */
export function replayFieldsOf(reasoningContent: string, details: JsonObject[]): JsonObject | undefined {
  if (details.length > 0) return { reasoning_details: details };
  if (reasoningContent !== '') return { reasoning_content: reasoningContent };
  return undefined;
}

/** reasoning_details entries as sent (a whole reply), kept only when they are objects. */
export function detailsOf(value: unknown): JsonObject[] {
  return Array.isArray(value)
    ? value.filter((entry): entry is JsonObject => typeof entry === 'object' && entry !== null && !Array.isArray(entry))
    : [];
}

/** Streamed reasoning_details pieces joined by `index`: their text, summary and data strings are concatenated. */
export function mergeDetails(into: JsonObject[], pieces: unknown): void {
  for (const piece of detailsOf(pieces)) {
    const index = piece.index;
    const same = typeof index === 'number' ? into.find((entry) => entry.index === index) : undefined;
    if (same === undefined) {
      into.push({ ...piece });
      continue;
    }
    for (const [key, value] of Object.entries(piece)) {
      const before = same[key];
      same[key] =
        typeof value === 'string' &&
        typeof before === 'string' &&
        (key === 'text' || key === 'summary' || key === 'data')
          ? before + value
          : (before ?? value);
    }
  }
}

/**
 * Where the current turn starts: after the last assistant message without tool calls (an answer ends a turn). DeepSeek's
 * rule: the reasoning of this turn's tool-call messages goes back; earlier turns' reasoning does not.
 */
export function currentTurnStart(messages: ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'assistant' && (message.toolCalls ?? []).length === 0) return index + 1;
  }
  return 0;
}

/** The fields to add to an assistant message sent back: its replay items, when this server wrote them. */
export function replayFor(message: ChatMessage, replayProvider: string): JsonObject {
  if (message.role !== 'assistant' || message.replay?.provider !== replayProvider) return {};
  const fields: JsonObject = {};
  for (const item of message.replay.items as JsonValue[])
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) Object.assign(fields, item);
  return fields;
}

/** The legacy `function_call` of a reply (before tool_calls), as one tool call. */
export function legacyFunctionCall(value: unknown): { name?: unknown; arguments?: unknown } | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as { name?: unknown; arguments?: unknown })
    : undefined;
}

export function notText(url: string, field: string, value: unknown): ModelError {
  const type = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return new ModelError('invalid_response', `${url} sent ${type} as ${field}, where text was expected`, {
    retryable: false,
  });
}

/** Servers without a reasoning parser (vLLM, Together, old Ollama) leave `<think>...</think>` at the start of the text. */
export function splitThinkTags(parts: ReadParts): ReadParts {
  const match = /^\s*<think>([\s\S]*?)<\/think>\s*/.exec(parts.text);
  if (match === null) return parts;
  return { text: parts.text.slice(match[0].length), reasoning: parts.reasoning + match[1]!.trim() };
}

/**
 * The same for a stream: text pieces are held while they may still open `<think>`; inside it they are reasoning, after
 * `</think>` text again. `route` returns what each piece is.
 */
export class ThinkTagRouter {
  private state: 'start' | 'inside' | 'outside' = 'start';
  private held = '';

  route(piece: string): ReadParts {
    if (this.state === 'outside') return { text: piece, reasoning: '' };
    this.held += piece;
    if (this.state === 'start') {
      const trimmed = this.held.trimStart();
      if (trimmed.length < '<think>'.length && '<think>'.startsWith(trimmed)) return { text: '', reasoning: '' };
      if (!trimmed.startsWith('<think>')) return this.leave(this.held);
      this.state = 'inside';
      this.held = trimmed.slice('<think>'.length);
    }
    const end = this.held.indexOf('</think>');
    if (end === -1) {
      // Keep back what could be the start of the closing tag.
      const safe = Math.max(0, this.held.length - '</think>'.length);
      const reasoning = this.held.slice(0, safe);
      this.held = this.held.slice(safe);
      return { text: '', reasoning };
    }
    const reasoning = this.held.slice(0, end);
    const rest = this.held.slice(end + '</think>'.length).replace(/^\s+/, '');
    this.state = 'outside';
    this.held = '';
    return { text: rest, reasoning };
  }

  /** What is still held when the stream ends. */
  flush(): ReadParts {
    const held = this.held;
    this.held = '';
    return this.state === 'inside' ? { text: '', reasoning: held } : { text: held, reasoning: '' };
  }

  private leave(text: string): ReadParts {
    this.state = 'outside';
    this.held = '';
    return { text, reasoning: '' };
  }
}
