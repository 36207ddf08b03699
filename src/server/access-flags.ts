import { StageloopError } from '../common/stageloop-error.js';
// The serve settings behind the access rules, checked before anything listens: a token a client can send, origins
// written as browsers send them, host names without ports. Messages never repeat a token.

/** A token is one word of visible characters, at least 8 long: a blank or spaced one could never be sent back. */
export function checkToken(token: string, from: string): string {
  if (token.trim() === '')
    throw new StageloopError(
      'config',
      `${from} is blank: give a token of at least 8 visible characters (no spaces), or leave it out on 127.0.0.1`,
    );
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new StageloopError(
      'config',
      `${from} must be visible ASCII characters without spaces (clients send it as "Authorization: Bearer TOKEN")`,
    );
  if (token.length < 8)
    throw new StageloopError('config', `${from} must be at least 8 characters: a short token is easy to guess`);
  return token;
}

/** `--allow-origin`: scheme://host[:port] exactly as a browser sends it in the Origin header. */
export function checkAllowedOrigin(value: string): string {
  const trimmed = value.trim().replace(/\/$/, '');
  const parsed = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
  if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== trimmed.toLowerCase()) {
    throw new StageloopError(
      'config',
      `--allow-origin "${value}" is not an origin: write scheme://host[:port] with no path, e.g. https://app.example.com`,
    );
  }
  return parsed.origin;
}

/** `--allow-host`: a host name or address the server may be reached by (no scheme, no port), or * for any. */
export function checkAllowedHost(value: string): string {
  const trimmed = value.trim().toLowerCase();
  if (trimmed === '*' || /^(\[[0-9a-f:.]+\]|[0-9a-f:]*:[0-9a-f:.]+|[a-z0-9_.-]+)$/.test(trimmed)) return trimmed;
  throw new StageloopError(
    'config',
    `--allow-host "${value}" is not a host name: write a name or address with no scheme or port, e.g. stageloop.internal (or * to allow any)`,
  );
}
