// The one error type: every mistake stageloop reports carries a code, and two tables say what a code means to a
// process (its exit code) and to an HTTP client (its status). Nobody matches on class names.

/** What went wrong, from the point of view of the person who has to act on it. */
export const errorCodes = [
  'usage', // a wrong flag, argument or request field
  'config', // a broken configuration file, environment variable or setting
  'not_found', // no such run, session, tool or file
  'conflict', // the thing exists already, or is in a state that forbids the request
  'busy', // another process owns the run right now
  'finished', // the run ended already and cannot be continued
  'invalid_decision', // an approval decision names no pending call, or its edit is invalid
  'pipeline_mismatch', // a recording made with another pipeline shape than the one assembled now
  'unsupported_media_type', // a request body that is not JSON where JSON is required
  'too_large', // a request body or input over its size limit
  'forbidden', // a request refused by a security rule (origin, host, token)
  'unauthorized', // no token or a wrong one
  'unavailable', // the server takes no such request now (it is shutting down) or cannot serve it at all
  'store', // the run store or session store failed
  'model', // the model server failed in a way no retry mends
  'tool', // a tool is misdefined or its server failed to start
  'internal', // a bug of ours
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface StageloopErrorOptions {
  cause?: unknown;
  /**
   * What to do about it at the command line (`pass --force`, `see it with "stageloop show R"`): the CLI prints it
   * after the message; an HTTP body carries only the message, whose words hold for every caller.
   */
  hint?: string;
}

/** On every StageloopError: one made by another copy of this module (the CLI's bundle runs beside the package's files) is still ours. */
const brand = Symbol.for('stageloop.error');

/** tRPC's shape: a code, a one-line message a person can act on, and the cause kept for --verbose. */
export class StageloopError extends Error {
  override name = 'StageloopError';
  readonly code: ErrorCode;
  readonly hint?: string;
  constructor(code: ErrorCode, message: string, options: StageloopErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.hint !== undefined) this.hint = options.hint;
  }
}
Object.defineProperty(StageloopError.prototype, brand, { value: true });

/** Exit codes of the CLI: 2 for every mistake the user can fix, 1 for failures that are not theirs. */
export const exitCodeOf: Readonly<Record<ErrorCode, number>> = {
  usage: 2,
  config: 2,
  not_found: 2,
  conflict: 2,
  busy: 2,
  finished: 2,
  invalid_decision: 2,
  pipeline_mismatch: 2,
  unsupported_media_type: 2,
  too_large: 2,
  forbidden: 2,
  unauthorized: 2,
  unavailable: 1,
  store: 2,
  model: 1,
  tool: 2,
  internal: 1,
};

/** HTTP statuses of the server: a user's mistake is never a 500. */
export const httpStatusOf: Readonly<Record<ErrorCode, 400 | 401 | 403 | 404 | 409 | 413 | 415 | 500 | 502 | 503>> = {
  usage: 400,
  config: 400,
  not_found: 404,
  conflict: 409,
  busy: 409,
  finished: 409,
  invalid_decision: 409,
  pipeline_mismatch: 409,
  unsupported_media_type: 415,
  too_large: 413,
  forbidden: 403,
  unauthorized: 401,
  unavailable: 503,
  store: 503,
  model: 502,
  tool: 502,
  internal: 500,
};

export function isStageloopError(value: unknown): value is StageloopError {
  return (
    value instanceof StageloopError ||
    (value instanceof Error && (value as Error & { [brand]?: unknown })[brand] === true)
  );
}

/** The code of any thrown value: ours keep theirs, anything else is a bug of ours. */
export function codeOf(value: unknown): ErrorCode {
  return isStageloopError(value) ? value.code : 'internal';
}
