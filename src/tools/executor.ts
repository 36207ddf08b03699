// The executor: runs one tool call (lookup, JSON parse, zod validation, timeout, abort, output cap) and always resolves.
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { ToolCall } from '../model/types.js';
import type { Tool, ToolOutput } from './define-tool.js';
import { LazyAbort } from '../common/lazy-abort.js';
import { isPromiseLike } from '../common/promise-like.js';
import { InFlightCall, unwatch, watch } from './in-flight.js';
import { parseArguments } from './call-arguments.js';
import { CallContext, type CallRun } from './call-context.js';
import { describeSettled, failure, type CallSettings, type Settled } from './call-outcome.js';
import type { ToolResult } from '../engine/tool-port.js';
import { messageOf } from '../common/error-message.js';

export { EMPTY_RESULT_CONTENT, type CallSettings } from './call-outcome.js';

/**
 * Runs one call of `tool` (undefined when the name is not registered). Resolves for every outcome, including a tool
 * that throws synchronously, hangs, ignores its signal or returns something that cannot be serialised.
 * Not an async function: a call that needs no waiting (a sync schema and tool) costs no async frame.
 */
export function executeToolCall(
  call: ToolCall,
  tool: Tool | undefined,
  settings: CallSettings,
  availableNames: readonly string[],
  signal?: AbortSignal,
  run?: CallRun,
): Promise<ToolResult> {
  const started = performance.now();
  try {
    if (!tool) {
      const available = availableNames.length > 0 ? availableNames.join(', ') : '(none)';
      return Promise.resolve(
        failure(
          'unknown_tool',
          `Unknown tool ${quote(call.name)}. Available tools: ${available}.`,
          false,
          performance.now() - started,
        ),
      );
    }
    if (signal?.aborted) return Promise.resolve(notStarted(tool, started));

    const parsed = parseArguments(call.arguments);
    if (!parsed.ok) {
      const message = `Arguments for tool "${tool.name}" are not valid JSON (${parsed.reason}). Send one JSON object that matches the tool's parameters.`;
      return Promise.resolve(failure('invalid_arguments', message, false, performance.now() - started));
    }
    const checked = validate(tool, parsed.value);
    if (checked instanceof Promise) {
      // An async check may reject (it threw): that is reported like any failure, never thrown.
      return checked
        .then((validation) => runValidated(call, tool, validation, settings, started, signal, run))
        .catch((error: unknown) => unexpected(call, error, started));
    }
    const outcome = runValidated(call, tool, checked, settings, started, signal, run);
    return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
  } catch (error) {
    return Promise.resolve(unexpected(call, error, started));
  }
}

/** Safety net: nothing should throw, but the executor's contract is to resolve. */
function unexpected(call: ToolCall, error: unknown, started: number): ToolResult {
  return failure(
    'failed',
    `Tool ${quote(call.name)} could not be run: ${messageOf(error)}`,
    false,
    performance.now() - started,
  );
}

type Validation = ReturnType<Tool['parameters']['safeParse']>;

function runValidated(
  call: ToolCall,
  tool: Tool,
  validation: Validation,
  settings: CallSettings,
  started: number,
  signal: AbortSignal | undefined,
  run: CallRun | undefined,
): ToolResult | Promise<ToolResult> {
  if (!validation.success) {
    return failure(
      'invalid_arguments',
      `Invalid arguments for tool "${tool.name}":\n${z.prettifyError(validation.error)}`,
      false,
      performance.now() - started,
    );
  }
  // The run may have been cancelled while an async check of the arguments ran.
  if (signal?.aborted) return notStarted(tool, started);
  return runWithDeadline(call, tool, validation.data, settings, started, signal, run);
}

function resultOf(
  settled: Settled,
  call: ToolCall,
  tool: Tool,
  settings: CallSettings,
  started: number,
  context?: CallContext,
): ToolResult {
  let result: ToolResult;
  try {
    result = describeSettled(settled, tool, settings, started);
  } catch (error) {
    result = unexpected(call, error, started);
  }
  // Tokens the tool spent (an agent's run) travel with its result, whatever the outcome.
  if (context?.usage !== undefined) result.usage = context.usage;
  if (context?.agent !== undefined && result.ok) result.agent = context.agent;
  if (context?.agentUsage !== undefined) result.agentUsage = context.agentUsage;
  return result;
}

function notStarted(tool: Tool, started: number): ToolResult {
  return failure(
    'aborted',
    `Tool "${tool.name}" was not started: the run was cancelled.`,
    false,
    performance.now() - started,
  );
}

/** Tools whose parameters turned out to have asynchronous checks: validated with safeParseAsync from then on. */
const asyncParameters = new WeakSet<Tool>();

/**
 * The synchronous parse first (an await less per call); a schema with an async check makes it throw, and is then
 * parsed asynchronously, now and from then on. That first call runs the schema's synchronous checks twice.
 */
function validate(tool: Tool, value: unknown): Validation | Promise<Validation> {
  if (!asyncParameters.has(tool)) {
    try {
      return tool.parameters.safeParse(value);
    } catch (error) {
      if (!(error instanceof z.core.$ZodAsyncError)) throw error;
      asyncParameters.add(tool);
    }
  }
  return tool.parameters.safeParseAsync(value);
}

/**
 * Starts the tool; a tool that answers synchronously is done at once. Otherwise races it against its timer and the
 * run's signal; a tool that ignores its signal is abandoned, not awaited.
 */
function runWithDeadline(
  call: ToolCall,
  tool: Tool,
  args: Record<string, unknown>,
  settings: CallSettings,
  started: number,
  runSignal: AbortSignal | undefined,
  run: CallRun | undefined,
): ToolResult | Promise<ToolResult> {
  // The time limit covers the whole call from its start: validation is part of it.
  const deadline = started + settings.timeoutMs;
  const abort = new LazyAbort();
  let output: ReturnType<Tool['execute']>;
  const context = new CallContext(abort, call.id, run);
  try {
    output = tool.execute(args, context);
  } catch (error) {
    return resultOf({ kind: 'thrown', error }, call, tool, settings, started, context);
  }
  if (!isPromiseLike(output)) return resultOf({ kind: 'returned', output }, call, tool, settings, started, context);
  return new Promise<ToolResult>(
    (resolve) => new PendingCall(call, tool, settings, started, output, abort, deadline, runSignal, resolve, context),
  );
}

/** One asynchronous call in flight: the first of its output, its timeout or the run's abort settles it. */
class PendingCall extends InFlightCall {
  #done = false;

  constructor(
    private readonly call: ToolCall,
    private readonly tool: Tool,
    private readonly settings: CallSettings,
    private readonly started: number,
    output: PromiseLike<ToolOutput | void>,
    private readonly abort: LazyAbort,
    readonly deadline: number,
    readonly runSignal: AbortSignal | undefined,
    private readonly resolve: (result: ToolResult) => void,
    private readonly context: CallContext,
  ) {
    super();
    watch(this);
    // The tool itself may have aborted the run before it returned.
    if (runSignal?.aborted) this.cancel();
    try {
      output.then(
        (value) => this.settle({ kind: 'returned', output: value }),
        (error: unknown) => this.settle({ kind: 'thrown', error }),
      );
    } catch (error) {
      this.settle({ kind: 'thrown', error });
    }
  }

  cancel(): void {
    if (this.settle({ kind: 'aborted' })) this.abort.abort(this.runSignal?.reason);
  }

  expire(): void {
    if (this.settle({ kind: 'timeout' })) {
      this.abort.abort(
        new DOMException(`Tool "${this.tool.name}" timed out after ${this.settings.timeoutMs} ms`, 'TimeoutError'),
      );
    }
  }

  settle(value: Settled): boolean {
    if (this.#done) return false;
    this.#done = true;
    unwatch(this);
    this.resolve(resultOf(value, this.call, this.tool, this.settings, this.started, this.context));
    return true;
  }
}

/** Model-written names are quoted and bounded before they go into a message. */
function quote(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}...` : name);
}
