// act (iteration): reads turn.toolCalls and turn.results, runs deps.tools (as the calling run: call-scope); writes turn.results (in call order), the act slot and the usage tools report; returns no signal.
import type { RunEvents, Stage, StageContext } from '../../src/engine/stage.js';
import { addUsage, type RunState } from '../../src/engine/state.js';
import { asToolCaller, toolCallersWanted, type ToolCaller } from '../../src/tools/call-scope.js';
import type {} from '../guards/limits.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolOutcome, ToolResult } from '../../src/tools/types.js';
import { shortText } from '../shared/text.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    tool_call: { id: string; name: string; arguments: string };
    tool_result:
      | { id: string; name: string; ok: true; result: string; durationMs: number }
      | { id: string; name: string; ok: false; error: { kind: string; message: string }; durationMs: number };
  }
}

/** Run totals of the tool calls act itself executed (pre-filled results are not counted). */
export interface ActSlot {
  executed: number;
  failed: number;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    act: ActSlot;
  }
}

export interface ActOptions {
  /** Characters of a tool result shown in the `tool_result` event (default 200). */
  previewChars?: number;
}

export function act(options: ActOptions = {}): Stage {
  const previewChars = options.previewChars ?? 200;
  return {
    name: 'act',
    execute(state, ctx) {
      // A turn without tool calls returns at once, without a promise.
      return state.turn.toolCalls.length === 0 ? undefined : runCalls(state, ctx, previewChars);
    },
  };
}

function runCalls(state: RunState, ctx: StageContext, previewChars: number): Promise<void> | void {
  const calls = state.turn.toolCalls;
  const tools = ctx.deps.tools;
  const prefilled = state.turn.results;
  // A guard may have decided some calls already (a refusal): those keep their result and are not run.
  const decided = prefilled.length === 0 ? undefined : new Map<string, ToolOutcome>(prefilled.map((outcome) => [outcome.call.id, outcome]));
  const pending = decided === undefined ? calls : calls.filter((call) => !decided.has(call.id));
  if (ctx.observed) for (const call of pending) ctx.emit('tool_call', { id: call.id, name: call.name, arguments: call.arguments });
  if (pending.length === 0 || tools === undefined) return record(state, ctx, pending, pending.map(noToolBox), decided, previewChars);
  // A continuation rather than an async function: one promise a turn instead of an async frame.
  // Promise.resolve returns a native promise as is and adopts any other thenable a custom ToolBox returns.
  const execute = () => Promise.resolve(tools.executeAll(pending, ctx.signalIfAbortable));
  const running = toolCallersWanted() ? asToolCaller(callerOf(state, ctx), execute) : execute();
  return running.then((results) => record(state, ctx, pending, results, decided, previewChars));
}

/** What a tool that starts a run of its own (an agent) learns of this one. */
function callerOf(state: RunState, ctx: StageContext): ToolCaller {
  return { runId: state.runId, pipeline: state.pipeline, iteration: state.iteration, deps: ctx.deps, usage: state.usage, tokenLimit: state.limits?.maxTokens ?? undefined };
}

/** Stores the outcomes in call order, after any the guards decided. */
function record(state: RunState, ctx: StageContext, pending: readonly ToolCall[], results: readonly ToolResult[], decided: Map<string, ToolOutcome> | undefined, previewChars: number): void {
  const slot = (state.act ??= { executed: 0, failed: 0 });
  const outcomes: ToolOutcome[] = pending.map((call, index) => {
    const result = results[index] ?? missingResult(call);
    slot.executed++;
    if (!result.ok) slot.failed++;
    // An agent's tokens count in this run's usage (and so in its budgets).
    if (result.usage !== undefined) addUsage(state.usage, result.usage);
    if (ctx.observed) ctx.emit('tool_result', resultEvent(call, result, previewChars));
    return { call, result };
  });
  if (decided === undefined) {
    state.turn.results = outcomes;
    return;
  }
  const calls = state.turn.toolCalls;
  for (const outcome of outcomes) decided.set(outcome.call.id, outcome);
  const callIds = new Set(calls.map((call) => call.id));
  const extra = state.turn.results.filter((outcome) => !callIds.has(outcome.call.id));
  state.turn.results = [...calls.map((call) => decided.get(call.id)!), ...extra];
}

function resultEvent(call: ToolCall, result: ToolResult, limit: number): RunEvents['tool_result'] {
  const durationMs = Math.round(result.durationMs);
  if (result.ok) return { id: call.id, name: call.name, ok: true, result: shortText(result.content, limit), durationMs };
  return { id: call.id, name: call.name, ok: false, error: { kind: result.error.kind, message: shortText(result.error.message, limit) }, durationMs };
}

function noToolBox(call: ToolCall): ToolResult {
  return { ok: false, error: { kind: 'unknown_tool', message: `No tools are available in this run, so "${call.name}" cannot be called.`, retryable: false }, durationMs: 0 };
}

function missingResult(call: ToolCall): ToolResult {
  return { ok: false, error: { kind: 'failed', message: `The tool box returned no result for "${call.name}".`, retryable: false }, durationMs: 0 };
}
