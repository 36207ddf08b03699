// Errors of the Stainless-built SDKs (Anthropic's; OpenAI's goes through openai-errors.ts) as the one ModelError:
// the same kinds and wording as the Chat Completions adapter, and never an API key in the message.
import { messageOf } from '../common/error-message.js';
import { redactModelSecrets, toModelError, type ErrorContext } from './openai-errors.js';
import { ModelError, type ModelErrorKind } from './types.js';

/** The error classes such an SDK exports. */
export interface SdkErrors {
  APIError: abstract new (...args: never[]) => Error & { status?: number; headers?: Headers; error?: unknown };
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

export function kindForStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'bad_request';
}

/** The server's own words: `{error: {message}}` (Anthropic, OpenAI), a plain `message`, else the SDK's. */
export function serverWords(body: unknown, fallback: string): string {
  const record = (body ?? {}) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
  const nested = typeof record.error === 'object' ? record.error?.message : record.error;
  const text = typeof nested === 'string' ? nested : typeof record.message === 'string' ? record.message : fallback;
  return text.replace(/^\d{3}\s+/, '').trim() || 'no details';
}

/** A status error in the house wording: "URL answered 429 after 3 attempts: message". */
export function statusError(status: number, words: string, context: ErrorContext, cause: unknown): ModelError {
  const kind = kindForStatus(status);
  const attempts = context.maxRetries + 1;
  const tried =
    kind === 'rate_limited' || kind === 'server' ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
  return new ModelError(
    kind,
    redactModelSecrets(`${context.url} answered ${status}${tried}: ${words}`, context.apiKey),
    {
      status,
      cause,
    },
  );
}

export function sdkModelError(error: unknown, context: ErrorContext, sdk: SdkErrors | undefined): ModelError {
  if (sdk === undefined || error instanceof ModelError) return toModelError(error, context);
  if (error instanceof sdk.APIUserAbortError || context.signal?.aborted) return toModelError(error, context);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    const attempts = context.maxRetries + 1;
    return new ModelError(
      'timeout',
      `no reply from ${context.url} within ${context.timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'})`,
      { cause: error },
    );
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const reason = toModelError(cause ?? error, context);
    const why = reason.kind === 'connection' ? reason.message.replace(/^.*?: /, '') : messageOf(cause ?? error);
    return new ModelError('connection', redactModelSecrets(`cannot reach ${context.url}: ${why}`, context.apiKey), {
      cause: error,
    });
  }
  if (error instanceof sdk.APIError) {
    const words = serverWords(error.error, error.message);
    if (error.status === undefined)
      return new ModelError(
        'server',
        redactModelSecrets(`${context.url} reported an error while streaming: ${words}`, context.apiKey),
        { cause: error },
      );
    return statusError(error.status, words, context, error);
  }
  return toModelError(error, context);
}
