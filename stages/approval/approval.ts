// approval (before act): reads turn.toolCalls, turn.results and the `approval` slot, asks deps.approve; writes refusals into turn.results, edited arguments into turn.toolCalls, the slot and the run's approvals the tool gate reads (gate-state); returns interruptRun (awaiting_approval) while a call waits for a person. It presents decisions: the tool gate enforces them, with or without this stage.
import type { Decision } from '../../src/durable/decisions.js';
import { interruptRun, type PendingDecision, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { ToolCall } from '../../src/model/types.js';
import type { Tool } from '../../src/tools/define-tool.js';
import { applyDecision } from '../shared/approval-apply.js';
import { askPerson, decisionRecord, type ApprovalRecord } from '../shared/ask-person.js';
import { waitBegins, waitEnds } from '../shared/person-wait.js';
import { allowAlways, markApproved } from '../../src/tools/gate-state.js';
import { toolAsks } from '../../src/tools/tool-gate.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    /** `agent`: the path of the agent whose call it is, when it waits inside an agent the run called. */
    approval_requested: { id: string; tool: string; arguments: string; reason: string; agent?: string };
    approval_decided: ApprovalRecord & { always?: boolean; agent?: string };
  }
}

export interface ApprovalOptions {
  /** Tools whose every call needs approval, by name, or 'all' (the pipeline's policy, on top of each tool's own). */
  tools?: readonly string[] | 'all';
  /** Tools the list above never asks about (an MCP server's `approveTools`); the other reasons still apply. */
  except?: readonly string[];
  /** Where each tool's own `needsApproval` and schema are found (the run's ToolRegistry, or a list of tools). */
  registry?: { get(name: string): Tool | undefined } | readonly Tool[];
  /** Other reasons a call needs a person (the taint policy's), asked after the pipeline's list and before the tool's own. */
  reasons?: ReadonlyArray<(call: ToolCall, state: RunState) => string | undefined>;
}

export type { ApprovalRecord } from '../shared/ask-person.js';

export interface ApprovalSlot {
  /** Tools a person allowed for the rest of the run. */
  always: string[];
  /** This turn's decisions so far, by call id (kept across a pause, applied once every call is decided). */
  decided: Record<string, Decision>;
  log: ApprovalRecord[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    approval: ApprovalSlot;
  }
}

export function approval(options: ApprovalOptions = {}): Stage {
  const policy = options.tools === 'all' ? 'all' : new Set(options.tools ?? []);
  const registry = options.registry;
  const lookup = Array.isArray(registry)
    ? (name: string) => (registry as readonly Tool[]).find((tool) => tool.name === name)
    : (name: string) => (registry as { get(name: string): Tool | undefined } | undefined)?.get(name);

  /** Why this call needs a person, or undefined when it does not. */
  async function reasonFor(call: ToolCall, state: RunState): Promise<string | undefined> {
    if ((policy === 'all' || policy.has(call.name)) && options.except?.includes(call.name) !== true)
      return `the pipeline asks for approval of every ${call.name} call`;
    for (const reason of options.reasons ?? []) {
      const because = reason(call, state);
      if (because !== undefined) return because;
    }
    return toolAsks(call, lookup(call.name), state);
  }

  async function decide(state: RunState, ctx: StageContext): Promise<Signal | void> {
    const slot = (state.approval ??= { always: [], decided: {}, log: [] });
    // A resumed run: the time it waited paused is not the time budget's.
    waitEnds(state, ctx);
    const settled = new Set(state.turn.results.map((outcome) => outcome.call.id));
    const waiting: PendingDecision[] = [];
    const asked: ToolCall[] = [];
    for (const call of state.turn.toolCalls) {
      if (settled.has(call.id)) continue;
      if (slot.decided[call.id] !== undefined) {
        asked.push(call);
        continue;
      }
      const reason = await reasonFor(call, state);
      if (reason === undefined) continue;
      asked.push(call);
      if (slot.always.includes(call.name)) {
        slot.decided[call.id] = { approve: true };
        record(ctx, slot, state, call, { approve: true }, 'always');
        continue;
      }
      const answer = await askPerson(state, ctx, call, reason);
      if ('pending' in answer) {
        waiting.push(answer.pending);
        continue;
      }
      const decision = answer.decision;
      slot.decided[call.id] = decision;
      if ('always' in decision && decision.always === true && !slot.always.includes(call.name)) {
        slot.always.push(call.name);
        allowAlways(state, call.name);
      }
      record(ctx, slot, state, call, decision, 'person');
    }
    if (waiting.length > 0) waitBegins(state, ctx);
    if (waiting.length > 0)
      return interruptRun(
        `waiting for a person to approve ${waiting.length === 1 ? `the ${waiting[0]!.tool} call` : `${waiting.length} tool calls`}`,
        waiting,
        'awaiting_approval',
      );
    for (const call of asked) {
      const decision = slot.decided[call.id]!;
      // The tool gate runs an approved call (and only it): the decision is the run's, not this stage's.
      if (decision.approve) markApproved(state, call.id);
      await applyDecision(state, call, decision, lookup(call.name));
    }
    slot.decided = {};
  }

  return {
    name: 'approval',
    quiet: true,
    execute(state, ctx) {
      // A turn without tool calls returns at once, without a promise.
      return state.turn.toolCalls.length === 0 ? undefined : decide(state, ctx);
    },
  };
}

function record(
  ctx: StageContext,
  slot: ApprovalSlot,
  state: RunState,
  call: ToolCall,
  decision: Decision,
  by: ApprovalRecord['by'],
): void {
  const entry = decisionRecord(state, call, decision, by);
  slot.log.push(entry);
  ctx.emit(
    'approval_decided',
    'always' in decision && decision.always === true ? { ...entry, always: true } : { ...entry },
  );
}
