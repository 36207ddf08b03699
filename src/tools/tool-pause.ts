// A tool call that waits for a person: the tool gate held it (one decision under the call's id), or an agent whose own run paused for approval. act keeps the batch's finished
// results and pauses the calling run with the call's decisions under ids prefixed by the call's id
// ("call_1/call_7"); on resume it asks deps.approve for them (the decisions given, or a person at a prompt) and runs
// only that call again, with its decisions under its own run's ids (the scope's `decisions`).
import type { Decision } from '../engine/decision-types.js';
import type { PendingDecision } from '../engine/signal.js';
import type { ToolResult } from '../engine/tool-port.js';

/** What act keeps while calls wait (JSON, so a paused run's checkpoint holds it). */
export interface PausedCalls {
  /** Each paused call's pending decisions, with the ids its own run gave them. */
  calls: Record<string, PendingDecision[]>;
  /** Decisions given so far, by prefixed id (kept across a pause until every one is decided). */
  decided: Record<string, Decision>;
}

/** The decisions a result waits for, when it is a pause. */
export function pendingOfResult(result: ToolResult | undefined): PendingDecision[] | undefined {
  if (result === undefined || result.ok || result.error.kind !== 'paused') return undefined;
  const pending = result.error.pending;
  return pending !== undefined && pending.length > 0 ? pending : undefined;
}

/** The calling run's id for a decision of one of its calls: the call's id, then the id the call's own run gave it
 * (the tool gate's own hold is the call itself, under its id as the approval stage asks it). */
export function pausedId(callId: string, id: string): string {
  return id === callId ? callId : `${callId}/${id}`;
}

/** The call waits for the tool gate's own decision (not an agent's). */
export function heldByGate(paused: PausedCalls, callId: string): boolean {
  return paused.calls[callId]?.some((item) => item.id === callId && item.agent === undefined) === true;
}

export type PausedDecided = { waiting: PendingDecision[] } | { decisions: Map<string, Record<string, Decision>> };

/** What a paused call's decision is asked as: its prefixed id, tool, arguments and the agent whose call it is. */
export function pausedRequest(
  item: PendingDecision,
  id: string,
): { id: string; tool: string; arguments: string; reason: string; agent?: string } {
  const request = {
    id,
    tool: typeof item.tool === 'string' ? item.tool : item.kind,
    arguments: typeof item.arguments === 'string' ? item.arguments : '',
    reason: item.reason,
  };
  return typeof item.agent === 'string' ? { ...request, agent: item.agent } : request;
}

/** Asks (`ask`: a person, through deps.approve) for each undecided decision; the ones still waiting (prefixed), or every call's decisions once all are given. */
export async function decidePaused(
  paused: PausedCalls,
  ask: (item: PendingDecision, id: string) => Promise<Decision | undefined>,
): Promise<PausedDecided> {
  const waiting: PendingDecision[] = [];
  for (const [callId, pending] of Object.entries(paused.calls)) {
    for (const item of pending) {
      const id = pausedId(callId, item.id);
      if (paused.decided[id] !== undefined) continue;
      const decision = await ask(item, id);
      if (decision === undefined) waiting.push({ ...item, id });
      else paused.decided[id] = decision;
    }
  }
  if (waiting.length > 0) return { waiting };
  const decisions = new Map<string, Record<string, Decision>>();
  for (const [callId, pending] of Object.entries(paused.calls)) {
    decisions.set(
      callId,
      Object.fromEntries(
        pending.flatMap((item) => [...answeredBefore(item), [item.id, paused.decided[pausedId(callId, item.id)]!]]),
      ),
    );
  }
  return { decisions };
}

/** Decisions a call was given at earlier pauses, which it needs again when it runs again (an MCP server that asked a
 * person twice during one call): the pending decision carries them as `answered`, by their ids. */
function answeredBefore(item: PendingDecision): Array<[string, Decision]> {
  const answered = item.answered;
  if (answered === null || typeof answered !== 'object' || Array.isArray(answered)) return [];
  return Object.entries(answered as unknown as Record<string, Decision>);
}
