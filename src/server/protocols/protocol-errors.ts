// Reading a protocol's request body, and a protocol route's error as the server's JSON error, with the status the error's code maps to (never a stack).
import type { Context } from 'hono';
import type { z, ZodType } from 'zod';
import { httpStatusOf, isStageloopError, StageloopError, type ErrorCode } from '../../common/stageloop-error.js';
import { sendError } from '../errors.js';

export function asStageloopError(error: unknown): StageloopError {
  return isStageloopError(error)
    ? error
    : new StageloopError('internal', error instanceof Error ? error.message : String(error), { cause: error });
}

/** Over JSON-RPC (A2A, MCP) the HTTP answer is a 200: the error's code and the status it stands for go beside its message. */
export function errorFieldsOf(error: StageloopError): { code: ErrorCode; httpStatus: number } {
  return { code: error.code, httpStatus: httpStatusOf[error.code] };
}

export function protocolErrorResponse(context: Context, error: unknown): Response {
  const known = asStageloopError(error);
  return sendError(context, known.code, known.message);
}

/** The request's JSON body checked with the protocol's schema; a mistake is one `usage` line naming the field. */
export async function protocolBody<Schema extends ZodType>(
  context: Context,
  schema: Schema,
  expected: string,
): Promise<z.infer<Schema>> {
  let body: unknown;
  try {
    body = await context.req.json();
  } catch {
    throw new StageloopError('usage', `the request body is not JSON: send ${expected}`);
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new StageloopError('usage', `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
}
