// The executor: runs one tool call (lookup, JSON parse, zod validation, timeout, abort, output cap) and always resolves.
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { ToolCall } from '../model/types.js';
import type { Tool, ToolOutput } from './define-tool.js';
import { ToolFailure } from './tool-failure.js';
import type { ToolErrorKind, ToolResult } from './types.js';

export interface CallSettings {
  timeoutMs: number;
  maxOutputChars: number;
  /** 'truncate' (default): ok:true, content cut with a marker, `truncated: true`. 'error': an `output_too_large` error. */
  oversizedOutput: 'truncate' | 'error';
}

/** Content of an ok result whose tool returned nothing, so evaluation can tell "nothing found" from real output. */
export const EMPTY_RESULT_CONTENT = '(empty result: the tool ran successfully and returned no content)';

const MAX_ERROR_MESSAGE_CHARS = 2_000;

/**
 * Runs one call of `tool` (undefined when the name is not registered). Resolves for every outcome, including a tool
 * that throws synchronously, hangs, ignores its signal or returns something that cannot be serialised.
 */
export async function executeToolCall(
  call: ToolCall,
  tool: Tool | undefined,
  settings: CallSettings,
  availableNames: readonly string[],
  signal?: AbortSignal,
): Promise<ToolResult> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  try {
    if (!tool) {
      const available = availableNames.length > 0 ? availableNames.join(', ') : '(none)';
      return failure('unknown_tool', `Unknown tool ${quote(call.name)}. Available tools: ${available}.`, false, elapsed());
    }
    if (signal?.aborted) return failure('aborted', `Tool "${tool.name}" was not started: the run was cancelled.`, false, elapsed());

    const parsed = parseArguments(call.arguments);
    if (!parsed.ok) {
      return failure('invalid_arguments', `Arguments for tool "${tool.name}" are not valid JSON (${parsed.reason}). Send one JSON object that matches the tool's parameters.`, false, elapsed());
    }
    const validation = await tool.parameters.safeParseAsync(parsed.value);
    if (!validation.success) {
      return failure('invalid_arguments', `Invalid arguments for tool "${tool.name}":\n${z.prettifyError(validation.error)}`, false, elapsed());
    }

    const settled = await runWithDeadline(tool, validation.data, settings.timeoutMs, signal);
    switch (settled.kind) {
      case 'timeout':
        return failure('timeout', `Tool "${tool.name}" did not finish within ${settings.timeoutMs} ms and was stopped.`, true, elapsed());
      case 'aborted':
        return failure('aborted', `Tool "${tool.name}" was stopped: the run was cancelled.`, false, elapsed());
      case 'thrown':
        return fromThrown(tool.name, settled.error, elapsed());
      case 'returned':
        return fromOutput(tool.name, settled.output, settings, elapsed);
    }
  } catch (error) {
    // Safety net: nothing above should throw, but the executor's contract is to resolve.
    return failure('failed', `Tool ${quote(call.name)} could not be run: ${messageOf(error)}`, false, elapsed());
  }
}

type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

function parseArguments(text: string): Parsed {
  // Some models send "" for a tool without parameters; that means {}.
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}

type Settled =
  | { kind: 'returned'; output: ToolOutput | void }
  | { kind: 'thrown'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

/** Races the tool against its timer and the run's signal; a tool that ignores its signal is abandoned, not awaited. */
function runWithDeadline(tool: Tool, args: Record<string, unknown>, timeoutMs: number, runSignal: AbortSignal | undefined): Promise<Settled> {
  const controller = new AbortController();
  return new Promise<Settled>((resolve) => {
    let done = false;
    const settle = (value: Settled) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      runSignal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => {
      settle({ kind: 'aborted' });
      controller.abort(runSignal?.reason);
    };
    const timer = setTimeout(() => {
      settle({ kind: 'timeout' });
      controller.abort(new DOMException(`Tool "${tool.name}" timed out after ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    runSignal?.addEventListener('abort', onAbort, { once: true });
    // Promise.resolve().then also catches a synchronous throw from execute.
    Promise.resolve()
      .then(() => tool.execute(args, { signal: controller.signal }))
      .then(
        (output) => settle({ kind: 'returned', output }),
        (error: unknown) => settle({ kind: 'thrown', error }),
      );
  });
}

function fromThrown(toolName: string, error: unknown, durationMs: number): ToolResult {
  if (error instanceof ToolFailure) return failure(error.kind, `Tool "${toolName}" failed: ${error.message}`, error.retryable, durationMs);
  return failure('failed', `Tool "${toolName}" failed: ${messageOf(error)}`, false, durationMs);
}

function fromOutput(toolName: string, output: ToolOutput | void, settings: CallSettings, elapsed: () => number): ToolResult {
  let text: string | undefined;
  try {
    text = typeof output === 'string' ? output : output === undefined || output === null ? '' : JSON.stringify(output);
  } catch (error) {
    return failure('failed', `Tool "${toolName}" returned a value that cannot be turned into text: ${messageOf(error)}`, false, elapsed());
  }
  // JSON.stringify gives undefined for a function or a symbol.
  if (text === undefined) return failure('failed', `Tool "${toolName}" returned a ${typeof output}, which cannot be turned into text`, false, elapsed());
  if (text.trim() === '') return { ok: true, content: EMPTY_RESULT_CONTENT, empty: true, durationMs: elapsed() };
  if (text.length <= settings.maxOutputChars) return { ok: true, content: text, durationMs: elapsed() };
  if (settings.oversizedOutput === 'error') {
    return failure(
      'output_too_large',
      `Tool "${toolName}" returned ${text.length} characters, above the limit of ${settings.maxOutputChars}. Ask for less (a narrower request).`,
      false,
      elapsed(),
    );
  }
  const kept = text.slice(0, settings.maxOutputChars);
  const marker = `\n\n[output truncated: showing the first ${kept.length} of ${text.length} characters]`;
  return { ok: true, content: kept + marker, truncated: true, durationMs: elapsed() };
}

function failure(kind: ToolErrorKind, message: string, retryable: boolean, durationMs: number): ToolResult {
  const bounded = message.length > MAX_ERROR_MESSAGE_CHARS ? `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}...` : message;
  return { ok: false, error: { kind, message: bounded, retryable }, durationMs };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  try {
    return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Model-written names are quoted and bounded before they go into a message. */
function quote(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}...` : name);
}
