// The tool gate: every call a run makes through its tool box passes here before it executes, whatever stage makes it
// (act in ReAct, a plan step, a custom stage), in the run's own box and in each child agent's. A call that needs a
// person (the recipe's approveTools, the tool's needsApproval, a write after untrusted content) runs only once a person
// approved it (the approval stage, or act on resume: gate-state.ts); else it is held as a `paused` result carrying the
// pending decision, which act turns into the run's pause. The approval and taint stages only present decisions.
import type { ToolCall } from '../model/types.js';
import type { RunState } from '../engine/state.js';
import type { ToolBox, ToolResult, WrapToolCall } from '../engine/tool-port.js';
import type { ToolRun } from '../engine/tool-run.js';
import type { PendingDecision } from '../engine/signal.js';
import { StageloopError } from '../common/stageloop-error.js';
import type { Tool } from './define-tool.js';
import { effectsOf } from './effects.js';
import { firstTaint, isApproved, noteLiveTaint, taintSourceText, type TaintMark } from './gate-state.js';
import { repeatedCall, repeatReason, withStreak } from './repeated-calls.js';

export type TaintPolicy = 'ask' | 'refuse' | 'off';

/** What the gate enforces besides each tool's own `needsApproval`. */
export interface GatePolicy {
  /** Tools whose every call needs a person's approval, by name, or 'all' (the recipe's approveTools). */
  tools?: readonly string[] | 'all';
  /** Tools the list above never holds (an MCP server's `approveTools`, Cline's `autoApprove`): their own
   * needsApproval, the taint policy and the repeat rule still apply. */
  except?: readonly string[];
  /** A write call after untrusted content: waits for a person (`ask`), is refused, or runs (`off`, the default). */
  taintPolicy?: TaintPolicy;
  /** A call that already failed `limit - 1` times in a row (same tool, same canonical arguments) waits for a person
   * (the repeated-call guard's `onRepeat: 'ask'`; repeated-calls.ts); once a person rejected it, it is refused. */
  repeatedCalls?: { limit: number };
}

/** What the gate needs of the box it guards: the tools' traits at call time, and one call's execution. */
export interface GatedBox extends ToolBox {
  get(name: string): Tool | undefined;
  execute(call: ToolCall, signal?: AbortSignal, run?: RunState): Promise<ToolResult>;
  readonly names: readonly string[];
  wrappingCalls?(wrap: WrapToolCall): GatedBox;
}

/** Why this call must wait (or be refused): it writes, and untrusted content is in the context; undefined otherwise. */
export function taintReason(
  call: ToolCall,
  tool: Tool | undefined,
  state: RunState,
  policy: Exclude<TaintPolicy, 'off'>,
): string | undefined {
  const first = firstTaint(state);
  if (first === undefined || effectsOf(tool) !== 'write') return undefined;
  const what = policy === 'ask' ? 'so it waits for approval' : 'so it is refused';
  return `untrusted content entered the context (${taintSourceText(first)}) and ${call.name} has side effects (effects: write), ${what} (--taint-policy ${policy})`;
}

/** True when some call through `box` could ever be held: otherwise the run uses the box as is, at no cost a call. */
export function gateMatters(box: GatedBox, policy: GatePolicy): boolean {
  if (policy.tools === 'all' || (policy.tools !== undefined && policy.tools.length > 0)) return true;
  const tools = box.names.map((name) => box.get(name)!);
  if (policy.repeatedCalls !== undefined) return true;
  if (tools.some((tool) => tool.needsApproval !== undefined && tool.needsApproval !== false)) return true;
  return (policy.taintPolicy ?? 'off') !== 'off' && tools.some((tool) => effectsOf(tool) === 'write');
}

/** A run that may hold a call for a person but can neither ask one nor pause is refused before it starts. */
export function checkCanAsk(box: GatedBox, policy: GatePolicy, run: ToolRun): void {
  if (run.canAsk) return;
  const asking = box.names.find((name) => {
    const needs = box.get(name)?.needsApproval;
    return listed(policy, name) || (needs !== undefined && needs !== false);
  });
  if (asking === undefined) return;
  throw new StageloopError(
    'config',
    `the ${asking} tool needs a person's approval before it runs, but this run can neither ask one (no deps.approve) nor pause until one decides (no store): give deps.approve, or record the run in a store`,
  );
}

/** The run's view of `box`: each call passes the gate first. */
export function gatedTools(box: GatedBox, policy: GatePolicy, run: ToolRun, concurrency: number): ToolBox {
  const gated: ToolBox = {
    definitions: () => box.definitions(),
    ...(box.effectsOf !== undefined && { effectsOf: box.effectsOf.bind(box) }),
    executeAll(calls, signal) {
      return runAll(calls, concurrency, (call) => gatedCall(box, policy, run.state, call, signal));
    },
  };
  const wrapping = box.wrappingCalls?.bind(box);
  if (wrapping !== undefined) gated.wrappingCalls = (wrap) => gatedTools(wrapping(wrap), policy, run, concurrency);
  return gated;
}

function runAll(
  calls: readonly ToolCall[],
  concurrency: number,
  each: (call: ToolCall) => Promise<ToolResult>,
): Promise<ToolResult[]> {
  if (calls.length <= concurrency) return Promise.all(calls.map(each));
  const results: ToolResult[] = new Array<ToolResult>(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      results[index] = await each(calls[index]!);
    }
  };
  return Promise.all(Array.from({ length: concurrency }, worker)).then(() => results);
}

function gatedCall(
  box: GatedBox,
  policy: GatePolicy,
  state: RunState,
  call: ToolCall,
  signal: AbortSignal | undefined,
): Promise<ToolResult> {
  const tool = box.get(call.name);
  const run = () => {
    const result = noted(box, call, state, signal);
    return policy.repeatedCalls === undefined ? result : result.then(withStreak);
  };
  // The usual call needs no check that waits: no promise or frame beyond the call's own.
  if (tool === undefined || !mayHold(call, tool, policy, state)) return run();
  return holdOf(call, tool, policy, state).then((held) => held ?? run());
}

/** Untrusted content taints the run at once: a call made after it, in any step, is held (act records every result's
 * mark in the state, an agent's answer's included, live or served by a replay alike). */
function noted(box: GatedBox, call: ToolCall, state: RunState, signal: AbortSignal | undefined): Promise<ToolResult> {
  const result = box.execute(call, signal, state);
  return box.get(call.name)?.taints === true
    ? result.then((outcome) => {
        const mark = markOf(outcome);
        if (mark !== undefined) noteLiveTaint(state, mark, call.id);
        return outcome;
      })
    : result;
}

/** Whether anything could hold this call (a cheap check: most calls need no more). */
function mayHold(call: ToolCall, tool: Tool, policy: GatePolicy, state: RunState): boolean {
  if (tool.needsApproval !== undefined && tool.needsApproval !== false) return true;
  if (listed(policy, call.name)) return true;
  if (policy.repeatedCalls !== undefined && repeatedCall(state, call) !== undefined) return true;
  return (policy.taintPolicy ?? 'off') !== 'off' && effectsOf(tool) === 'write' && firstTaint(state) !== undefined;
}

/** The pipeline's approval list holds this tool (and the tool is not one of its exceptions). */
function listed(policy: GatePolicy, name: string): boolean {
  return (policy.tools === 'all' || policy.tools?.includes(name) === true) && policy.except?.includes(name) !== true;
}

export function markOf(result: ToolResult): TaintMark | undefined {
  return result.ok ? (result.taint ?? result.agent?.taint) : undefined;
}

/** The held result of a call that may not run now, or undefined when it may. */
async function holdOf(
  call: ToolCall,
  tool: Tool,
  policy: GatePolicy,
  state: RunState,
): Promise<ToolResult | undefined> {
  const taintPolicy = policy.taintPolicy ?? 'off';
  if (taintPolicy === 'refuse') {
    const refused = taintReason(call, tool, state, 'refuse');
    if (refused !== undefined) return heldResult('refused', `Not run: ${refused}.`);
  }
  const repeated = policy.repeatedCalls === undefined ? undefined : repeatedCall(state, call);
  if (
    repeated !== undefined &&
    repeated.refused > 0 &&
    repeatReason(repeated, policy.repeatedCalls!.limit) !== undefined
  )
    return heldResult('refused', `Not run: a person rejected this repeated, identical call to ${call.name} before.`);
  const reason =
    (await reasonOf(call, tool, policy, taintPolicy, state)) ??
    repeatReason(repeated, policy.repeatedCalls?.limit ?? 0);
  if (reason === undefined || isApproved(state, call.id, call.name)) return undefined;
  const pending: PendingDecision = {
    id: call.id,
    kind: 'tool_approval',
    tool: call.name,
    arguments: call.arguments,
    reason,
  };
  return heldResult('paused', `Waiting for a person: ${reason}.`, [pending]);
}

/** The same order the approval stage asks in: the pipeline's list, the taint policy, the tool's own wish (then a repeat). */
async function reasonOf(
  call: ToolCall,
  tool: Tool,
  policy: GatePolicy,
  taintPolicy: TaintPolicy,
  state: RunState,
): Promise<string | undefined> {
  if (listed(policy, call.name)) return `the pipeline asks for approval of every ${call.name} call`;
  if (taintPolicy === 'ask') {
    const tainted = taintReason(call, tool, state, 'ask');
    if (tainted !== undefined) return tainted;
  }
  return toolAsks(call, tool, state);
}

/** Why the tool itself wants a person for this call (its `needsApproval`), or undefined when it does not. */
export async function toolAsks(call: ToolCall, tool: Tool | undefined, state: RunState): Promise<string | undefined> {
  const needs = tool?.needsApproval;
  if (needs === undefined || needs === false) return undefined;
  if (needs === true) return `the ${call.name} tool asks for approval of every call`;
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return undefined; // the executor reports the invalid arguments; nothing runs
  }
  const asks = await needs(args as Record<string, unknown>, {
    runId: state.runId,
    iteration: state.iteration,
    callId: call.id,
  });
  return asks ? `the ${call.name} tool asks for approval of these arguments` : undefined;
}

export function heldResult(kind: 'refused' | 'paused', message: string, pending?: PendingDecision[]): ToolResult {
  const error = { kind, message, retryable: false };
  return { ok: false, error: pending === undefined ? error : { ...error, pending }, durationMs: 0 };
}
