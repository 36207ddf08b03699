// A tool call's arguments as JSON, parsed once a turn: think's check parses them to see they are one object, and the
// call it hands on carries that value (CheckedToolCall) for the executor to take instead of parsing the text again.
import { messageOf } from '../common/error-message.js';
import type { ToolCall } from '../model/types.js';

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; reason: string };

/** Some models send "" for a tool without parameters; that means {}. */
export function parseArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}

/**
 * A tool call with the value its check parsed from `arguments`. The value is private: it is not in the call's JSON
 * (a recording), in a spread copy or in a structured clone, which parse their own text; the call's fields are the
 * plain ones, in their usual order.
 */
export class CheckedToolCall implements ToolCall {
  id: string;
  name: string;
  arguments: string;
  #text: string | undefined;
  #value: unknown;

  constructor(id: string, name: string, text: string, value: unknown) {
    this.id = id;
    this.name = name;
    this.arguments = text;
    this.#text = text;
    this.#value = value;
  }

  /** The checked value while `arguments` is still the text checked; handed out once, so no two executions share it. */
  take(): ParsedArguments {
    if (this.#text === undefined || this.#text !== this.arguments) return parseArguments(this.arguments);
    const value = this.#value;
    this.#text = this.#value = undefined;
    return { ok: true, value };
  }
}

/** The call's arguments: the value a CheckedToolCall carries, otherwise a parse of its text. */
export function takeArguments(call: ToolCall): ParsedArguments {
  return call instanceof CheckedToolCall ? call.take() : parseArguments(call.arguments);
}
