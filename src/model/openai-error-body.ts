// Error bodies come in many shapes ({"error":{...}}, vLLM's {"object":"error","message":...}, Gemini's
// [{"error":{...}}], FastAPI's {"detail":[...]}, text, HTML); the openai SDK reads only the first. The client's fetch
// rewrites the others into it, so every error names the server's own message in one line.

/** The server's message in an error body of any shape, on one line, or '' when it has none. */
export function errorMessageOf(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return oneLine(text.replace(/<[^>]*>/g, ' '));
  }
  return oneLine(messageIn(body, 0));
}

function messageIn(value: unknown, depth: number): string {
  if (depth > 4 || value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((entry) => messageIn(entry, depth + 1)).find((text) => text !== '') ?? '';
  if (typeof value !== 'object') return String(value);
  const { error, message, detail, msg } = value as Record<string, unknown>;
  for (const candidate of [error, message, detail, msg]) {
    const text = candidate === undefined ? '' : detailText(candidate) || messageIn(candidate, depth + 1);
    if (text !== '') return text;
  }
  return '';
}

/** FastAPI validation errors: [{loc: ['body', 'model'], msg: 'field required'}] as "body.model: field required". */
function detailText(value: unknown): string {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? (value as { detail?: unknown }).detail
      : undefined;
  if (!Array.isArray(list)) return '';
  const lines = list.flatMap((entry) => {
    const { loc, msg } = (entry ?? {}) as { loc?: unknown; msg?: unknown };
    if (typeof msg !== 'string') return [];
    return [Array.isArray(loc) ? `${loc.join('.')}: ${msg}` : msg];
  });
  return lines.join('; ');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 400 ? `${line.slice(0, 400)}...` : line;
}

/** True when the SDK reads the body's message itself: {"error": {"message": "..."}}. */
function sdkReadable(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } } | null;
    return typeof body?.error?.message === 'string' && body.error.message !== '';
  } catch {
    return false;
  }
}

/** A fetch for the openai client: an error answer whose message the SDK cannot find is rewritten into its shape. */
export async function errorBodyFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status < 400) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  const options = { status: response.status, statusText: response.statusText, headers };
  if (sdkReadable(text)) return new Response(text, options);
  headers.set('content-type', 'application/json');
  const message = errorMessageOf(text) || (text.trim() === '' ? 'an empty body' : 'a body without a message');
  return new Response(JSON.stringify({ error: { message } }), options);
}
