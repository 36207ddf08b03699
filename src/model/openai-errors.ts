// Turns whatever the openai SDK (or fetch, or a bad body) throws into one ModelError whose message has no API key.
import { redactSecrets, withoutSecret } from '../common/redact.js';
import { loadedOpenAISdk } from './openai-sdk.js';
import { RequestAborted } from './request-guard.js';
import { ModelError } from './types.js';
import { messageOf } from '../common/error-message.js';

export interface ErrorContext {
  /** The base URL without credentials, for messages like "cannot reach http://127.0.0.1:9/v1". */
  url: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
}

/** Removes the API key, URL credentials and anything shaped like a secret from text shown to people. */
export function redactModelSecrets(text: string, apiKey: string | undefined): string {
  return redactSecrets(withoutSecret(text, apiKey).replace(/\/\/[^/\s@:]+:[^/\s@]+@/g, '//'));
}

/** The URL as it may be shown: no user name, password or query string. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '[invalid url]';
  }
}

const connectionCodes: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  EPIPE: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed by the server',
  CERT_HAS_EXPIRED: 'TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
};

/** Finds a readable reason in the cause chain of a fetch failure (undici nests the socket error). */
function connectionReason(error: unknown): string {
  let current: unknown = error;
  let deepest = 'connection failed';
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && connectionCodes[code] !== undefined) return connectionCodes[code];
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '' && message !== 'fetch failed' && message !== 'Connection error.')
      deepest = message;
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  // fetch refuses some ports outright (9, 25, 6000...) without trying to connect.
  return deepest === 'bad port' ? 'connection refused by fetch itself (the port is on its blocked list)' : deepest;
}

/** A socket that closed or reset after the answer began (undici says "terminated"): a lost connection, worth a retry. */
function lostMidBody(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && connectionCodes[code] !== undefined) return true;
    if ((current as { message?: unknown }).message === 'terminated') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function serverMessage(error: { error?: unknown; message: string }): string {
  const body = error.error as { message?: unknown; metadata?: { raw?: unknown } } | undefined;
  // A gateway (OpenRouter) says "Provider returned error" and puts the provider's own words in metadata.raw.
  const raw = typeof body?.metadata?.raw === 'string' ? `: ${body.metadata.raw}` : '';
  const text = typeof body?.message === 'string' ? body.message + raw : error.message;
  return (
    text
      .replace(/^\d{3}\s+/, '')
      .replace(/\s+/g, ' ')
      .trim() || 'no details'
  );
}

function kindForStatus(status: number): ModelError['kind'] {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'bad_request';
}

export function toModelError(error: unknown, context: ErrorContext): ModelError {
  const clean = (text: string) => redactModelSecrets(text, context.apiKey);
  if (error instanceof ModelError)
    return new ModelError(error.kind, clean(error.message), {
      retryable: error.retryable,
      status: error.status,
      cause: error.cause,
    });
  const attempts = context.maxRetries + 1;
  const sdk = loadedOpenAISdk();
  if (
    error instanceof RequestAborted ||
    (sdk !== undefined && error instanceof sdk.APIUserAbortError) ||
    context.signal?.aborted
  ) {
    return new ModelError('aborted', `request to ${context.url} was aborted`, { retryable: false, cause: error });
  }
  if (sdk === undefined) return otherFailure(error, context);
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = sdk;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError(
      'timeout',
      `no reply from ${context.url} within ${context.timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'})`,
      { cause: error },
    );
  }
  if (error instanceof APIConnectionError) {
    return new ModelError(
      'connection',
      clean(`cannot reach ${context.url}: ${connectionReason(error.cause ?? error)}`),
      { cause: error },
    );
  }
  if (error instanceof APIError) {
    if (error.status === undefined) {
      // An `error` object inside a stream: the server failed after it started answering.
      return new ModelError(
        'server',
        clean(`${context.url} reported an error while streaming: ${serverMessage(error)}`),
        { cause: error },
      );
    }
    const kind = kindForStatus(error.status);
    const retryAfter = error.headers?.get('retry-after');
    const suffix = kind === 'rate_limited' && retryAfter ? ` (retry after ${retryAfter} s)` : '';
    const tried =
      kind === 'rate_limited' || kind === 'server' ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
    return new ModelError(
      kind,
      clean(`${context.url} answered ${error.status}${tried}: ${serverMessage(error)}${suffix}`),
      { status: error.status, cause: error },
    );
  }
  return otherFailure(error, context);
}

/** Failures that are not the SDK's own: a body cut off mid-way, a body that is not JSON, anything else. */
function otherFailure(error: unknown, context: ErrorContext): ModelError {
  const clean = (text: string) => redactModelSecrets(text, context.apiKey);
  if (lostMidBody(error)) {
    return new ModelError(
      'connection',
      clean(`lost the connection to ${context.url} in the middle of its answer: ${connectionReason(error)}`),
      { cause: error },
    );
  }
  if (error instanceof SyntaxError) {
    return new ModelError('invalid_response', `${context.url} sent a body that is not valid JSON`, { cause: error });
  }
  const message = messageOf(error);
  return new ModelError('invalid_response', clean(`unexpected failure talking to ${context.url}: ${message}`), {
    cause: error,
  });
}
