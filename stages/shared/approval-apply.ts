// What a decision does to the turn: a rejection or an invalid edit becomes a `refused` result act will not run;
// a valid edit replaces the call's arguments.
import { z } from 'zod';
import type { Decision } from '../../src/durable/decisions.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall } from '../../src/model/types.js';
import type { Tool } from '../../src/tools/define-tool.js';

export async function applyDecision(
  state: RunState,
  call: ToolCall,
  decision: Decision,
  tool: Tool | undefined,
): Promise<void> {
  if (!decision.approve) {
    const because = decision.message === undefined || decision.message.trim() === '' ? '.' : `: ${decision.message}`;
    return refuse(state, call, `Not run: the person reviewing tool calls rejected this call${because}`);
  }
  if (!('arguments' in decision)) return;
  const text = typeof decision.arguments === 'string' ? decision.arguments : JSON.stringify(decision.arguments);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse(
      state,
      call,
      `Not run: the edited arguments for ${call.name} are not valid JSON: ${text.slice(0, 200)}`,
    );
  }
  if (tool !== undefined) {
    const checked = await tool.parameters.safeParseAsync(parsed);
    if (!checked.success)
      return refuse(
        state,
        call,
        `Not run: the edited arguments for ${call.name} are invalid:\n${z.prettifyError(checked.error)}`,
      );
  }
  state.turn.toolCalls = state.turn.toolCalls.map((each) =>
    each.id === call.id ? { ...each, arguments: text } : each,
  );
}

function refuse(state: RunState, call: ToolCall, message: string): void {
  state.turn.results.push({
    call,
    result: { ok: false, error: { kind: 'refused', message, retryable: false }, durationMs: 0 },
  });
}
