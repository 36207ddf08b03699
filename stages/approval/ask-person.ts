// Asking a person about one tool call through the approvals port: the request event, the wait (which the time
// budget does not count) and, when no one answers now, the pending decision the run pauses with. The approval stage
// and the repeated-call guard (onRepeat 'ask') both ask this way.
import type { Decision } from '../../src/durable/decisions.js';
import type { PendingDecision } from '../../src/engine/signal.js';
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall } from '../../src/model/types.js';
import { waitBegins, waitEnds } from './person-wait.js';

export type PersonAnswer = { decision: Decision } | { pending: PendingDecision };

export async function askPerson(state: RunState, ctx: StageContext, call: ToolCall, reason: string): Promise<PersonAnswer> {
  const request = { id: call.id, tool: call.name, arguments: call.arguments, reason };
  ctx.emit('approval_requested', { ...request });
  if (ctx.deps.approve !== undefined) waitBegins(state, ctx);
  const decision = await ctx.deps.approve?.(request);
  // No answer now: the run pauses, and the wait goes on until it is resumed.
  if (decision === undefined) return { pending: { id: call.id, kind: 'tool_approval', tool: call.name, arguments: call.arguments, reason } };
  waitEnds(state, ctx);
  return { decision };
}
