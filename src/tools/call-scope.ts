// Which run a batch of tool calls is made for: act enters it around its batch, so a tool that starts a run of its own
// (an agent) reaches the calling run's listeners, tracer, usage and limits. A field of the one run scope
// (src/engine/run-scope.ts): the ToolBox port has no caller to hand on, and the tool is not called by act itself.
import type { Decision } from '../engine/decision-types.js';
import { currentScope, withinScope } from '../engine/run-scope.js';
import type { Deps, StageContext } from '../engine/stage.js';
import type { Usage } from '../engine/state.js';
import type { ChatMessage } from '../model/types.js';
import type { TaintMark } from '../engine/tool-port.js';

export interface ToolCaller {
  readonly runId: string;
  readonly pipeline: string;
  readonly iteration: number;
  /** The calling run's ports as its stages see them. */
  readonly deps: Deps;
  /** The calling run's usage so far (the live total). */
  readonly usage: Usage;
  /** The calling run's token limit (input + output), when it has one. */
  readonly tokenLimit: number | undefined;
  /** The calling run's task and conversation so far (a handoff passes them on). */
  readonly task?: string;
  readonly messages?: readonly ChatMessage[];
  /** The session the calling run is a turn of, and its user (the remember tool writes facts there). */
  readonly session?: string;
  readonly user?: string;
  /** The first untrusted source in the calling run's context: an agent it starts inherits it (tool-gate.ts). */
  readonly taint?: TaintMark | undefined;
  /** Reports an event of the calling run from inside a call (act's stage: an MCP call's `tool_progress`). */
  readonly emit?: StageContext['emit'];
  /** A paused call run again on resume: the decisions it waited for, by call id, each keyed by its own run's id. */
  readonly decisions?: ReadonlyMap<string, Readonly<Record<string, Decision>>>;
}

declare module '../engine/run-scope.js' {
  interface RunScope {
    /** The run whose tool batch the code runs for (act sets it around the batch). */
    toolCaller?: ToolCaller;
  }
}

/** Set once a tool that reads its caller exists: until then no batch pays for the async context. */
let wanted = false;

/** Called by tools that read their caller (agentTool), once, when they are made. */
export function wantToolCallers(): void {
  wanted = true;
}

export function toolCallersWanted(): boolean {
  return wanted;
}

export function asToolCaller<Result>(caller: ToolCaller, body: () => Result): Result {
  return withinScope({ toolCaller: caller }, body);
}

export function currentToolCaller(): ToolCaller | undefined {
  return currentScope()?.toolCaller;
}
