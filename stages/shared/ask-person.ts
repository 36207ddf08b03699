// Asking a person about one tool call through the approvals port: the request event, the wait (which the time
// budget does not count) and, when no one answers now, the pending decision the run pauses with. The approval stage
// and the repeated-call guard (onRepeat 'ask') both ask this way.
import type { Decision } from '../../src/durable/decisions.js';
import type { PendingDecision } from '../../src/engine/signal.js';
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall } from '../../src/model/types.js';
import { waitBegins, waitEnds } from './person-wait.js';
import { approvalRequest } from '../../src/engine/decision-types.js';

export type PersonAnswer = { decision: Decision } | { pending: PendingDecision };

/** One decision as the run keeps it; `by`: a person, or the "always" a person gave earlier for this tool. */
export interface ApprovalRecord {
  iteration: number;
  id: string;
  tool: string;
  approve: boolean;
  by: 'person' | 'always';
  message?: string;
  edited?: boolean;
}

/** `agent`: the agent whose call it is, when the call waits inside an agent this run called (its path). */
export async function askPerson(
  state: RunState,
  ctx: StageContext,
  call: ToolCall,
  reason: string,
  agent?: string,
): Promise<PersonAnswer> {
  const event = { id: call.id, tool: call.name, arguments: call.arguments, reason };
  ctx.emit('approval_requested', agent === undefined ? event : { ...event, agent });
  const request = approvalRequest(call.id, call.name, call.arguments, reason);
  if (ctx.deps.approve !== undefined) waitBegins(state, ctx);
  const decision = await ctx.deps.approve?.(request);
  // No answer now: the run pauses, and the wait goes on until it is resumed.
  if (decision === undefined)
    return { pending: { id: call.id, kind: 'tool_approval', tool: call.name, arguments: call.arguments, reason } };
  waitEnds(state, ctx);
  return { decision };
}

/** The record of a decision on one call (the approval slot's log entry, and the `approval_decided` event's data). */
export function decisionRecord(
  state: RunState,
  call: ToolCall,
  decision: Decision,
  by: ApprovalRecord['by'],
): ApprovalRecord {
  const entry: ApprovalRecord = {
    iteration: state.iteration,
    id: call.id,
    tool: call.name,
    approve: decision.approve,
    by,
  };
  if (!decision.approve && decision.message !== undefined) entry.message = decision.message;
  if ('arguments' in decision) entry.edited = true;
  return entry;
}
