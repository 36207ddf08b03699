// Every error the server answers is JSON `{ error: { code, message } }`: one line a person can act on, never a stack.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { StageloopError } from '../common/stageloop-error.js';

/** A serve setting that cannot work (an address in use, a blank token): the user's to fix, exit 2. */
export class ServeConfigError extends StageloopError {
  override readonly name = 'ServeConfigError';
  constructor(message: string) {
    super('config', message);
  }
}

export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(readonly status: ContentfulStatusCode, readonly code: string, message: string) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

export function sendError(context: Context, status: ContentfulStatusCode, code: string, message: string): Response {
  return context.json(errorBody(code, message), status);
}
