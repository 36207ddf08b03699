// The tool port: stages run tools only through a ToolBox (ctx.deps.tools), which never throws.
import type { JsonValue } from '../common/json.js';
import type { PendingDecision } from './signal.js';
import type { ChatUsage, ToolCall, ToolDefinition } from '../model/types.js';
import type { AgentUsage } from './usage.js';

/**
 * `refused`: a guard (loop guard, approval) or the tool itself decided the call must not run. `agent_stopped`: the
 * tool was an agent whose run did not complete (its `agent` field says how it ended). `paused`: the call waits for a
 * person (an agent whose run paused for approval): act pauses the calling run with its `pending` decisions, and
 * runs the call again with them on resume; a model never reads it.
 */
export type ToolErrorKind =
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'timeout'
  | 'aborted'
  | 'failed'
  | 'output_too_large'
  | 'refused'
  | 'agent_stopped'
  | 'paused';

export interface ToolError {
  kind: ToolErrorKind;
  message: string;
  retryable: boolean;
  /** Kind `agent_stopped`: how the agent's own run ended. */
  agent?: AgentStop;
  /** Kind `paused`: what the call waits for, with the ids its own run gave them. */
  pending?: PendingDecision[];
}

/** How an agent called as a tool ended when it did not complete. */
export interface AgentStop {
  name: string;
  runId: string;
  status: 'stopped' | 'failed' | 'cancelled' | 'interrupted';
  /** The child's stop reason kind (budget_tokens, error, cancelled, approval...). */
  stopKind: string;
}

/** What an agent called as a tool gave besides its answer, when its run completed. */
export interface AgentAnswer {
  name: string;
  runId: string;
  /** Its typed output, when its pipeline has an output schema. */
  output?: JsonValue;
  /** The agents its run was handed on to, in order (the last one answered), when it handed off. */
  handoffs?: Array<{ agent: string; runId: string }>;
  /** Its run read untrusted content (or started with it): the answer carries it into the calling run. */
  taint?: TaintMark;
}

/** Where untrusted text in a result came from: an MCP server's tool, a tool that reads the web, another tainting tool. */
export interface TaintMark {
  origin: 'web' | 'mcp' | 'tool';
  tool: string;
  /** The agent whose run read it, when it reached this run through an agent's answer. */
  agent?: string;
}

export type ToolResult =
  /** `empty`: the tool returned nothing (content says so); `truncated`: content was cut at the output cap (content ends with a marker). */
  | {
      ok: true;
      content: string;
      durationMs: number;
      empty?: boolean;
      truncated?: boolean;
      usage?: ChatUsage;
      agent?: AgentAnswer;
      /** The agent run the call made, for the run's `agents` tree. */
      agentUsage?: AgentUsage;
      /** The content is untrusted (the tool's results taint): the run that reads it is tainted from now on. */
      taint?: TaintMark;
      /** The failed attempts before this one, when the tool's retry policy ran the call again. */
      retries?: ToolRetryRecord[];
    }
  | {
      ok: false;
      error: ToolError;
      durationMs: number;
      usage?: ChatUsage;
      agentUsage?: AgentUsage;
      /** The tool gate's repeat rule counts this failure toward the call's streak of failures in a row. */
      streak?: true;
      retries?: ToolRetryRecord[];
    };

/** One failed attempt of a call its tool's retry policy ran again (src/tools/call-policy.ts), and the wait after it. */
export interface ToolRetryRecord {
  /** 1 for the first attempt. */
  attempt: number;
  error: { kind: ToolErrorKind; message: string };
  waitMs: number;
}
// `usage`: model tokens the call itself spent (an agent's run): act adds them to the calling run's usage.

/** A tool call together with its result, as kept in RunState. */
export interface ToolOutcome {
  call: ToolCall;
  result: ToolResult;
}

/** Runs around each single call (tracing opens one span per call here). Must call `execute` once and return its result. */
export type WrapToolCall = (call: ToolCall, execute: () => Promise<ToolResult>) => Promise<ToolResult>;

/** What a call of a tool may do to the world (`write` for a tool that says nothing), and whether running it again is safe. */
export interface CallEffects {
  effects: 'none' | 'read' | 'write';
  idempotent: boolean;
}

export interface ToolBox {
  /** The tool list sent to the model. */
  definitions(): ToolDefinition[];
  /**
   * Optional: what a call of this tool may do. A recorded run writes the intent of a call that may write before it
   * runs (src/durable/journaled-ports.ts); a box that does not say has every call taken as a write.
   */
  effectsOf?(name: string): CallEffects;
  /** Runs the calls (in parallel, bounded) and resolves one result per call, in call order. Never rejects. */
  executeAll(calls: readonly ToolCall[], signal?: AbortSignal): Promise<ToolResult[]>;
  /**
   * Optional: the same tools with `wrap` run around each single call, outside any wrapper already there. A box
   * that offers it gets a span per call from tracing; one that does not is traced at the stage only.
   */
  wrappingCalls?(wrap: WrapToolCall): ToolBox;
}
