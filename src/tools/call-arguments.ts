// A tool call's arguments as JSON. Each place that needs the value parses the call's own text: think's check (is it
// one object?) and the executor (the value the tool gets). No value is kept between them, so no run, copy or edited
// call can ever be handed another's arguments.
import { messageOf } from '../common/error-message.js';

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
