// Bearer-token auth: with a token set, every API request must carry `Authorization: Bearer TOKEN`.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { sendError } from './errors.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export function bearerToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async function bearerTokenAuth(context, next) {
    const header = context.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    // Comparing digests keeps the comparison constant-time whatever the lengths.
    if (match === null || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      const message =
        match === null
          ? 'this server needs a token: send Authorization: Bearer TOKEN'
          : 'the token is not valid for this server';
      return sendError(context, 'unauthorized', message);
    }
    await next();
  };
}
