// A call in doubt: a recorded run was cut off (a crash) after it wrote the intent of a call that may write and before
// the call's result, so nobody knows whether it ran. A tool that is safe to run again (idempotent) runs again; any
// other write is held by the tool gate for a person, as a decision of kind `in_doubt`: approve runs it again, reject
// does not and the model reads the person's message instead of a result.
import type { ToolCall } from '../model/types.js';
import type { PendingDecision } from '../engine/signal.js';
import type { CallEffects, ToolResult } from '../engine/tool-port.js';
import { heldResult } from './tool-gate.js';

export const IN_DOUBT = 'in_doubt';

/** Whether a call whose outcome is unknown runs again by itself: it only reads, or says running it again is safe. */
export function rerunsByItself(effects: CallEffects): boolean {
  return effects.effects !== 'write' || effects.idempotent;
}

/** The gate's hold of a call in doubt: a paused result waiting for a person's decision. */
export function inDoubtHold(call: ToolCall): ToolResult {
  const reason = `the ${call.name} call was cut off before its result was recorded, so it may have run: approve runs it again, reject skips it (the model reads your message, e.g. "it did run; the result was ...")`;
  const pending: PendingDecision = {
    id: call.id,
    kind: IN_DOUBT,
    tool: call.name,
    arguments: call.arguments,
    reason,
  };
  return heldResult('paused', `Waiting for a person: ${reason}.`, [pending]);
}

/** What the model reads instead of a result when a person decided not to run a call in doubt again. */
export function inDoubtSkipped(name: string, message: string | undefined): string {
  const said = message === undefined || message.trim() === '' ? '' : ` The person says: ${message.trim()}`;
  return `Not run again: this ${name} call was cut off before its result was recorded, and a person decided not to run it again.${said}`;
}
