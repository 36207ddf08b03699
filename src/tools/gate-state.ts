// What the tool gate reads of a run, kept in the run's state so it survives pause, resume and replay: where untrusted
// content came from (the taint, which a child run inherits through its input) and which held calls a person approved.
// Both belong to the run, never to a plan step: steps side by side see one taint and one set of approvals.
import type { JsonObject } from '../common/json.js';
import type { TaintMark } from '../engine/tool-port.js';
import type { RunInput, RunState } from '../engine/state.js';
import type { Tool } from './define-tool.js';

export type { TaintMark } from '../engine/tool-port.js';

/** Where a piece of untrusted context came from. */
export interface TaintOrigin extends TaintMark {
  callId: string;
  iteration: number;
}

export interface TaintSlot {
  /** Every tainting result, in order; the context is tainted once there is one. */
  origins: TaintOrigin[];
}

/** What the gate keeps: calls a person approved (`iteration/callId`) and tools allowed for the rest of the run. */
export interface GateSlot {
  approved: string[];
  always: string[];
}

declare module '../engine/state.js' {
  interface StageSlots {
    taint: TaintSlot;
    gate: GateSlot;
  }
}

/** The run's own state under a plan step's view (a view is made with Object.create over it). */
export function runStateOf(state: RunState): RunState {
  let owner: RunState = state;
  while (!Object.hasOwn(owner, 'runId')) owner = Object.getPrototypeOf(owner) as RunState;
  return owner;
}

/** The mark a successful result of this tool carries, when its results taint. */
export function taintMarkOf(tool: Tool): TaintMark {
  const origin = tool.name.includes('__')
    ? 'mcp'
    : tool.effects === 'read' && /web|search|fetch|browse|http/i.test(tool.name)
      ? 'web'
      : 'tool';
  return { origin, tool: tool.name };
}

/** The taint a run started with: its caller's, when it is an agent's or a handoff target's run. */
export function inheritedTaint(input: RunInput): TaintMark | undefined {
  const given = input.options?.taint;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) return undefined;
  const { origin, tool, agent } = given as Record<string, unknown>;
  if (typeof tool !== 'string' || (origin !== 'web' && origin !== 'mcp' && origin !== 'tool')) return undefined;
  return typeof agent === 'string' ? { origin, tool, agent } : { origin, tool };
}

/** The first untrusted source in the run's context (its own, else one a live call just returned, else the one it
 * inherited), or undefined. */
export function firstTaint(state: RunState): TaintMark | undefined {
  return state.taint?.origins[0] ?? seenLive.get(runStateOf(state))?.[0] ?? inheritedTaint(state.input);
}

/** Untrusted content a live call returned, before act records it in the state. Kept off the state: a replay is
 * served the result without a call, and must leave the state (its JSON, key order included) as the live run did. */
const seenLive = new WeakMap<RunState, TaintOrigin[]>();

/** The gate saw a tainting result: a call made after it, in any step, is held at once (act records it after). */
export function noteLiveTaint(state: RunState, mark: TaintMark, callId: string): void {
  const run = runStateOf(state);
  const seen = seenLive.get(run) ?? [];
  if (seen.length === 0) seenLive.set(run, seen);
  addOrigin(seen, { ...mark, callId, iteration: run.iteration });
}

/** Records a tainting result on the run (once per call), whichever step's view it arrives through. */
export function noteTaint(state: RunState, mark: TaintMark, callId: string): TaintOrigin | undefined {
  const run = runStateOf(state);
  const slot = (run.taint ??= { origins: [] });
  return addOrigin(slot.origins, { ...mark, callId, iteration: run.iteration });
}

function addOrigin(origins: TaintOrigin[], origin: TaintOrigin): TaintOrigin | undefined {
  if (origins.some((each) => each.callId === origin.callId && each.iteration === origin.iteration)) return undefined;
  origins.push(origin);
  // Steps side by side finish in any order: origins are kept by iteration and call id, so a replay keeps the same.
  origins.sort((left, right) => left.iteration - right.iteration || compare(left.callId, right.callId));
  return origin;
}

/** The taint a child run starts with: what it inherits in its input's options. */
export function taintOption(mark: TaintMark): JsonObject {
  return { ...mark };
}

/** Words for the untrusted source a hold names. */
export function taintSourceText(mark: TaintMark & { iteration?: number }): string {
  const which = mark.iteration === undefined ? '' : ` of iteration ${mark.iteration}`;
  return mark.agent === undefined
    ? `the ${mark.tool} result${which}`
    : `the ${mark.tool} result read by agent ${mark.agent}`;
}

const approvalKey = (state: RunState, callId: string) => `${state.iteration}/${callId}`;

/** A person approved this call (the approval stage, or act on resume): the gate lets it run. */
export function markApproved(state: RunState, callId: string): void {
  const run = runStateOf(state);
  const slot = (run.gate ??= { approved: [], always: [] });
  const key = approvalKey(run, callId);
  if (!slot.approved.includes(key)) slot.approved.push(key);
}

/** A person allowed the tool for the rest of the run. */
export function allowAlways(state: RunState, tool: string): void {
  const slot = (runStateOf(state).gate ??= { approved: [], always: [] });
  if (!slot.always.includes(tool)) slot.always.push(tool);
}

export function isApproved(state: RunState, callId: string, tool: string): boolean {
  const slot = state.gate;
  return slot !== undefined && (slot.always.includes(tool) || slot.approved.includes(approvalKey(state, callId)));
}

const compare = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);
