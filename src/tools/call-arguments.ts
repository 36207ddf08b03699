// A tool call's arguments as JSON, parsed once a turn: think's check parses them to see they are one object, and the
// executor takes that value for the same call instead of parsing the same text again.
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

// One call is kept, the last one checked: a usual turn checks one call and runs it next, so one slot catches it
// without a map. Any other call (another run's in between, a copy, changed text) parses its own text.
let keptCall: ToolCall | undefined;
let keptText: string | undefined;
let keptValue: unknown;

/** Parses a call's arguments and keeps the value for `takeArguments` of this same call. */
export function checkArguments(call: ToolCall): ParsedArguments {
  const parsed = parseArguments(call.arguments);
  if (parsed.ok) {
    keptCall = call;
    keptText = call.arguments;
    keptValue = parsed.value;
  }
  return parsed;
}

/** The kept value now belongs to `copy` (a call copied after its check, with the same text). */
export function moveCheckedArguments(call: ToolCall, copy: ToolCall): void {
  if (keptCall === call && copy.arguments === keptText) keptCall = copy;
}

/**
 * The call's arguments: the value its check parsed when the call and its text are the ones checked last, otherwise a
 * parse of its text. The kept value is handed out once, so no two executions share (and may change) one object.
 */
export function takeArguments(call: ToolCall): ParsedArguments {
  if (keptCall === call && call.arguments === keptText) {
    const value = keptValue;
    keptCall = keptText = keptValue = undefined;
    return { ok: true, value };
  }
  return parseArguments(call.arguments);
}
