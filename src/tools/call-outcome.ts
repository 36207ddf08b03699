// What a settled tool call becomes: its output as text under the size cap, or a bounded failure. Its own file so
// the executor keeps to running the call (validation, deadline, abort).
import { performance } from 'node:perf_hooks';
import type { Tool, ToolOutput } from './define-tool.js';
import { ToolFailure } from './tool-failure.js';
import type { ToolErrorKind, ToolResult } from '../engine/tool-port.js';
import { messageOf } from '../common/error-message.js';

export interface CallSettings {
  timeoutMs: number;
  maxOutputChars: number;
  /** 'truncate' (default): ok:true, content cut with a marker, `truncated: true`. 'error': an `output_too_large` error. */
  oversizedOutput: 'truncate' | 'error';
}

/** Content of an ok result whose tool returned nothing, so evaluation can tell "nothing found" from real output. */
export const EMPTY_RESULT_CONTENT = '(empty result: the tool ran successfully and returned no content)';

const MAX_ERROR_MESSAGE_CHARS = 2_000;

/** How a call ended: the first of its output, its error, its timeout or the run's abort. */
export type Settled =
  | { kind: 'returned'; output: ToolOutput | void }
  | { kind: 'thrown'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

/** The result the model sees for a settled call. */
export function describeSettled(settled: Settled, tool: Tool, settings: CallSettings, started: number): ToolResult {
  switch (settled.kind) {
    case 'timeout':
      return failure(
        'timeout',
        `Tool "${tool.name}" did not finish within ${settings.timeoutMs} ms and was stopped.`,
        true,
        performance.now() - started,
      );
    case 'aborted':
      return failure(
        'aborted',
        `Tool "${tool.name}" was stopped: the run was cancelled.`,
        false,
        performance.now() - started,
      );
    case 'thrown':
      return fromThrown(tool.name, settled.error, performance.now() - started);
    case 'returned':
      return fromOutput(tool.name, settled.output, settings, started);
  }
}

function fromThrown(toolName: string, error: unknown, durationMs: number): ToolResult {
  if (error instanceof ToolFailure) {
    const result = failure(error.kind, `Tool "${toolName}" failed: ${error.message}`, error.retryable, durationMs);
    if (error.agent !== undefined && !result.ok) result.error.agent = { ...error.agent };
    if (error.pending !== undefined && !result.ok) result.error.pending = error.pending.map((item) => ({ ...item }));
    return result;
  }
  return failure('failed', `Tool "${toolName}" failed: ${messageOf(error)}`, false, durationMs);
}

function fromOutput(toolName: string, output: ToolOutput | void, settings: CallSettings, started: number): ToolResult {
  let text: string | undefined;
  try {
    text = typeof output === 'string' ? output : output === undefined || output === null ? '' : JSON.stringify(output);
  } catch (error) {
    return failure(
      'failed',
      `Tool "${toolName}" returned a value that cannot be turned into text: ${messageOf(error)}`,
      false,
      performance.now() - started,
    );
  }
  const durationMs = performance.now() - started;
  // JSON.stringify gives undefined for a function or a symbol.
  if (text === undefined)
    return failure(
      'failed',
      `Tool "${toolName}" returned a ${typeof output}, which cannot be turned into text`,
      false,
      durationMs,
    );
  if (text.trim() === '') return { ok: true, content: EMPTY_RESULT_CONTENT, empty: true, durationMs };
  if (text.length <= settings.maxOutputChars) return { ok: true, content: text, durationMs };
  if (settings.oversizedOutput === 'error') {
    return failure(
      'output_too_large',
      `Tool "${toolName}" returned ${text.length} characters, above the limit of ${settings.maxOutputChars}. Ask for less (a narrower request).`,
      false,
      durationMs,
    );
  }
  const kept = text.slice(0, settings.maxOutputChars);
  const marker = `\n\n[output truncated: showing the first ${kept.length} of ${text.length} characters]`;
  return { ok: true, content: kept + marker, truncated: true, durationMs };
}

export function failure(kind: ToolErrorKind, message: string, retryable: boolean, durationMs: number): ToolResult {
  const bounded =
    message.length > MAX_ERROR_MESSAGE_CHARS ? `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}...` : message;
  return { ok: false, error: { kind, message: bounded, retryable }, durationMs };
}
