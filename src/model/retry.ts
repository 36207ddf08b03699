// The adapter's own retries: which failures are retried, how long to wait (retry-after, capped), and a wait the run's signal cancels.
import { ModelError, type ChatStreamEvent } from './types.js';

/** The longest wait a server's retry-after can ask for (default 10 s); a longer one is cut to this. */
export const defaultMaxRetryAfterMs = 10_000;

/** A ModelError worth another attempt: rate limits, timeouts, lost connections, 5xx, and a 409 conflict. */
export function shouldRetry(error: ModelError): boolean {
  return error.kind !== 'aborted' && (error.retryable || error.status === 409);
}

/**
 * The wait before retry number `attempt` (0 for the first): the server's retry-after-ms or retry-after (seconds or an
 * HTTP date), never above `capMs`; without one, 0.5 s doubling per attempt up to 8 s, with up to 25% jitter off.
 */
export function retryDelayMs(
  headers: { get(name: string): string | null } | undefined,
  attempt: number,
  capMs: number,
): number {
  const asked = askedDelayMs(headers);
  if (asked !== undefined) return Math.min(Math.max(0, asked), capMs);
  const backoff = Math.min(500 * 2 ** attempt, 8_000);
  return Math.min(backoff * (1 - Math.random() * 0.25), capMs);
}

function askedDelayMs(headers: { get(name: string): string | null } | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds)) return milliseconds;
  const text = headers?.get('retry-after') ?? '';
  const seconds = Number.parseFloat(text);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(text);
  return Number.isFinite(date) ? date - Date.now() : undefined;
}

/**
 * Waits `ms` unless the signal aborts first: then it rejects at once and clears its timer, so a cancelled run keeps
 * no timer alive. (Referenced while it waits: a run waiting to retry is work the process must not exit on.)
 */
export function cancellableWait(ms: number, signal: AbortSignal | undefined, url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const aborted = () =>
      new ModelError('aborted', `request to ${url} was aborted while waiting to retry`, { retryable: false });
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How one adapter retries: its limits, where its requests go (for messages) and the caller's signal. */
export interface RetrySettings {
  maxRetries: number;
  maxRetryAfterMs: number;
  url: string;
  signal: AbortSignal | undefined;
}

/**
 * One request with the adapter's own retries (the SDKs are told to make none): `attempt` sends it, with the caller's
 * listener wrapped so that a stream which delivered a piece is never retried; `failure` maps what it threw to the
 * ModelError to throw or retry and the headers that may ask for a wait; the wait is cancelled by the signal at once.
 */
export async function withRetries<Result>(
  settings: RetrySettings,
  onEvent: ((event: ChatStreamEvent) => void) | undefined,
  attempt: (forward: ((event: ChatStreamEvent) => void) | undefined, attempt: number) => Promise<Result>,
  failure: (error: unknown) => { error: ModelError; headers?: { get(name: string): string | null } | undefined },
): Promise<Result> {
  for (let count = 0; ; count++) {
    let delivered = false;
    const forward = onEvent && ((event: ChatStreamEvent) => ((delivered = true), onEvent(event)));
    try {
      return await attempt(forward, count);
    } catch (thrown) {
      const { error, headers } = failure(thrown);
      if (count >= settings.maxRetries || delivered || !shouldRetry(error)) throw error;
      await cancellableWait(retryDelayMs(headers, count, settings.maxRetryAfterMs), settings.signal, settings.url);
    }
  }
}
