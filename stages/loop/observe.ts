// observe (iteration): reads turn.toolCalls, turn.results and the plan; writes messages (one tool message per result) and the observe slot; returns no signal.
import type { Stage } from '../../src/engine/stage.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolOutcome, ToolResult } from '../../src/engine/tool-port.js';
import { activeStep } from '../shared/plan-steps.js';
import { shortText } from '../shared/text.js';
import type { ObservedResult } from './observe-slot.js';

export type { ObservedResult, ObserveSlot } from './observe-slot.js';

export interface ObserveOptions {
  /** How many recent results the slot keeps (default 8). */
  keepResults?: number;
}

export function observe(options: ObserveOptions = {}): Stage {
  const keepResults = options.keepResults ?? 8;
  return {
    name: 'observe',
    execute(state) {
      const { toolCalls, results } = state.turn;
      if (toolCalls.length === 0 && results.length === 0) return;
      const ordered = inCallOrder(toolCalls, results);

      const step = activeStep(state) ?? state.plan?.current ?? null;
      const slot = state.observe?.step === step ? state.observe : (state.observe = { step, results: [] });
      for (let index = 0; index < ordered.length; index++) {
        const { call, result } = ordered[index]!;
        const content = toolMessageContent(result);
        state.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
        slot.results.push({
          tool: call.name,
          arguments: call.arguments,
          ok: result.ok,
          content: shortText(content, 500),
        });
      }
      const excess = slot.results.length - keepResults;
      // One over the limit (the usual turn) is a shift, which allocates nothing; splice makes an array of the removed.
      if (excess === 1) slot.results.shift();
      else if (excess > 1) slot.results.splice(0, excess);
    },
  };
}

/** Every call gets a reply, as the protocol requires; a result without a matching call is still fed back. */
function inCallOrder(toolCalls: readonly ToolCall[], results: readonly ToolOutcome[]): readonly ToolOutcome[] {
  if (results.length === toolCalls.length && sameOrder(toolCalls, results)) return results;
  const byId = new Map(results.map((outcome) => [outcome.call.id, outcome]));
  const ordered: ToolOutcome[] = toolCalls.map((call) => byId.get(call.id) ?? notRun(call));
  const callIds = new Set(toolCalls.map((call) => call.id));
  for (const outcome of results) if (!callIds.has(outcome.call.id)) ordered.push(outcome);
  return ordered;
}

function sameOrder(toolCalls: readonly ToolCall[], results: readonly ToolOutcome[]): boolean {
  for (let index = 0; index < results.length; index++)
    if (results[index]!.call.id !== toolCalls[index]!.id) return false;
  return true;
}

/** What the model reads for a result: the content, or the error with its kind so it can correct the call. */
export function toolMessageContent(result: ToolResult): string {
  return result.ok ? result.content : `Error (${result.error.kind}): ${result.error.message}`;
}

function notRun(call: ToolCall): ToolOutcome {
  return {
    call,
    result: {
      ok: false,
      error: { kind: 'failed', message: 'This call was not run.', retryable: false },
      durationMs: 0,
    },
  };
}
