// Reads the JSON in a planner's or replanner's reply the way real models write it: fenced, with prose around it,
// with trailing commas or single quotes. Not a stage: plan-parse and replan use it.

export type JsonReading = { ok: true; value: unknown } | { ok: false; problem: string };

/** The JSON value in a reply, recovering the usual small deviations; the problem names the exact parse error. */
export function readJson(text: string): JsonReading {
  const candidates = candidatesOf(text);
  if (candidates.length === 0)
    return { ok: false, problem: `the reply holds no JSON object or list: ${preview(text)}` };
  let firstError: string | undefined;
  for (const candidate of candidates) {
    for (const form of [
      candidate,
      withoutTrailingCommas(candidate),
      withDoubleQuotes(withoutTrailingCommas(candidate)),
    ]) {
      if (form === undefined) continue;
      try {
        return { ok: true, value: JSON.parse(form) };
      } catch (error) {
        firstError ??= (error as Error).message;
      }
    }
  }
  return { ok: false, problem: `the reply is not valid JSON (${firstError}): ${preview(candidates[0]!)}` };
}

/** The fenced block when there is one, else the text from its first bracket to the matching last one. */
function candidatesOf(text: string): string[] {
  const candidates: string[] = [];
  const fenced = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(text);
  if (fenced?.[1] !== undefined && fenced[1].trim() !== '') candidates.push(fenced[1].trim());
  const trimmed = text.trim();
  const start = trimmed.search(/[[{]/);
  if (start !== -1) {
    const close = trimmed[start] === '{' ? '}' : ']';
    const end = trimmed.lastIndexOf(close);
    if (end > start) candidates.push(trimmed.slice(start, end + 1));
  }
  return candidates;
}

function withoutTrailingCommas(text: string): string {
  return text.replace(/,(\s*[}\]])/g, '$1');
}

/** Single-quoted strings become double-quoted, only when the text has no double quotes that could be broken. */
function withDoubleQuotes(text: string): string | undefined {
  if (text.includes('"') || !text.includes("'")) return undefined;
  return text.replace(/'((?:[^'\\]|\\.)*)'/g, (_whole, inner: string) => JSON.stringify(inner.replace(/\\'/g, "'")));
}

export function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat === '' ? '(empty)' : flat.length > 120 ? `${flat.slice(0, 120)}...` : flat;
}
