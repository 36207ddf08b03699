// Every error the server answers is JSON `{ error: { code, message } }`: one line a person can act on, never a stack.
// The code is a StageloopError code, and its HTTP status comes from the one table (httpStatusOf).
import type { Context } from 'hono';
import { httpStatusOf, type ErrorCode } from '../common/stageloop-error.js';

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}

export function sendError(context: Context, code: ErrorCode, message: string): Response {
  return context.json(errorBody(code, message), httpStatusOf[code]);
}
