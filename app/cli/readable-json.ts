// Tool arguments and event data in words for progress lines: `calculator(expression: "12*7")` rather than raw JSON.
import { shortText } from '../../src/common/short-text.js';

/** A JSON text parsed when it is one; anything else is kept as it is. */
function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** An object's fields as `name: value, name: value`; a string as itself; anything else as JSON. */
export function fieldsText(value: unknown, limit = 160): string {
  const parsed = parsedJson(value);
  if (typeof parsed === 'string') return shortText(parsed, limit);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return shortText(JSON.stringify(parsed) ?? '', limit);
  const fields = Object.entries(parsed).map(
    ([name, field]) =>
      `${name}: ${typeof field === 'string' ? JSON.stringify(field) : (JSON.stringify(field) ?? 'undefined')}`,
  );
  return shortText(fields.join(', '), limit);
}

/** A tool call as a reader would write it: `calculator(expression: "12*7")`. */
export function callText(tool: string, argumentsJson: unknown, limit = 160): string {
  const parsed = parsedJson(argumentsJson);
  const inner = typeof parsed === 'string' ? JSON.stringify(shortText(parsed, limit)) : fieldsText(parsed, limit);
  return `${tool}(${inner})`;
}
