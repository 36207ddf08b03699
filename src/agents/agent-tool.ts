// agentTool: any pipeline as a tool another pipeline can call. A call starts a child run with the task; its answer
// (or typed output) is the tool result, and a child that did not complete is a typed tool error (`agent_stopped`).
// One run, one set of limits: the child's tokens count in the caller's usage, it gets at most the caller's remaining
// token budget, the caller's cancel reaches it, and its events and spans appear under the caller's.
import { z } from 'zod';
import type { JsonObject } from '../common/json.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { Deps, RunEvent } from '../engine/stage.js';
import type { RunInput } from '../engine/state.js';
import type { ChatModel } from '../model/types.js';
import { currentToolCaller, wantToolCallers, type ToolCaller } from '../tools/call-scope.js';
import { defineTool, type Tool, type ToolContext, type ToolEffects, type ToolOutput } from '../tools/define-tool.js';
import type { AgentAnswer } from '../engine/tool-port.js';
import { ToolFailure } from '../tools/tool-failure.js';
import { chargedModel, TokenAllowance, type TokenPool } from './allowance.js';
import { taintOption } from '../tools/gate-state.js';
import type { ChildOutcome } from './child-run.js';
import { agentUsageNode } from './agent-usage.js';

declare module '../engine/stage.js' {
  interface Deps {
    /** Set on an agent's run: its path from the first run ("coordinator/researcher" is ["coordinator", "researcher"]). */
    agent?: { path: readonly string[] };
  }
}

export interface AgentToolOptions<Input extends z.ZodObject = z.ZodObject> {
  /** The tool's name, which is also the agent's name in event paths. */
  name: string;
  /** What the agent does and when to ask it: the calling model chooses by this. */
  description: string;
  pipeline: Pipeline;
  /** The child's own ports: its model (required) and tools; clock and ids default to the system's. */
  deps?: Partial<Deps>;
  /** A structured input the caller sends beside the task (`{ task, input }`). */
  input?: Input;
  /** How many agents deep a chain may go (default 3): a call beyond is refused. */
  maxDepth?: number;
  /** The share of the caller's remaining token budget the child may spend (default 1: all that is left). */
  budgetShare?: number;
  /** Default 10 minutes: a child run is many model calls, far beyond a plain tool's 30 s. */
  timeoutMs?: number;
  /** Default `write`: say `read` or `none` when the agent's own tools change nothing. */
  effects?: ToolEffects;
}

export const AGENT_DEFAULTS: { readonly maxDepth: number; readonly budgetShare: number; readonly timeoutMs: number } = {
  maxDepth: 3,
  budgetShare: 1,
  timeoutMs: 600_000,
};

export function agentTool<Input extends z.ZodObject>(options: AgentToolOptions<Input>): Tool {
  const settings = { ...AGENT_DEFAULTS, ...options };
  if (!(Number.isInteger(settings.maxDepth) && settings.maxDepth >= 1))
    throw new TypeError(`agentTool "${options.name}": maxDepth must be a whole number of at least 1`);
  if (!(settings.budgetShare > 0 && settings.budgetShare <= 1))
    throw new TypeError(`agentTool "${options.name}": budgetShare must be a fraction above 0 and at most 1`);
  wantToolCallers();
  const task = z
    .string()
    .min(1)
    .describe(`What to ask the ${options.name} agent, in full: it sees nothing else of this conversation`);
  const parameters = options.input === undefined ? z.object({ task }) : z.object({ task, input: options.input });
  return defineTool({
    name: options.name,
    description: options.description,
    parameters,
    timeoutMs: settings.timeoutMs,
    effects: settings.effects ?? 'write',
    // Run again, the call finds its child run by id: a finished one gives its outcome, another resumes (child-run.ts).
    idempotent: true,
    execute: (args: { task: string; input?: unknown }, ctx) => callAgent(settings, args, ctx),
  });
}

/**
 * A handoff (handoff.ts) makes the child's input itself, from the calling run's conversation, and its result is the
 * child's answer as text (a typed output rides beside it, for the calling run's own output).
 */
export type Settings = AgentToolOptions & {
  maxDepth: number;
  budgetShare: number;
  timeoutMs: number;
  inputOf?: (caller: ToolCaller | undefined, callId: string | undefined) => RunInput;
};

export async function callAgent(
  settings: Settings,
  args: { task: string; input?: unknown },
  ctx: ToolContext,
): Promise<ToolOutput> {
  const caller = currentToolCaller();
  const path = [...(caller?.deps.agent?.path ?? [caller?.pipeline ?? 'run']), settings.name];
  const pathText = path.join('/');
  if (path.length - 1 > settings.maxDepth) {
    throw new ToolFailure(
      `agent "${settings.name}" was not started: agents may nest at most ${settings.maxDepth} deep (${pathText})`,
      { kind: 'refused' },
    );
  }
  const model = settings.deps?.model;
  if (model === undefined)
    throw new ToolFailure(`agent "${settings.name}" has no model: give agentTool({ deps: { model } })`);
  const controller = new AbortController();
  // The caller's cancel (and this call's timeout) reaches the child through the tool's signal.
  const forward = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) forward();
  else ctx.signal.addEventListener('abort', forward, { once: true });
  const allowance = allowanceFor(caller, settings, controller);
  try {
    if (allowance !== undefined && allowance.limit <= 0) {
      throw new ToolFailure(`agent "${settings.name}" was not started: the calling run's token budget is spent`, {
        kind: 'refused',
      });
    }
    return await runAgent(settings, args, ctx, { caller, path, pathText, model, controller, allowance });
  } finally {
    ctx.signal.removeEventListener('abort', forward);
    if (allowance !== undefined && caller !== undefined) leavePool(caller);
  }
}

interface AgentCall {
  caller: ToolCaller | undefined;
  path: string[];
  pathText: string;
  model: ChatModel;
  controller: AbortController;
  allowance: TokenAllowance | undefined;
}

async function runAgent(
  settings: Settings,
  args: { task: string; input?: unknown },
  ctx: ToolContext,
  call: AgentCall,
): Promise<ToolOutput> {
  const { caller, path, pathText, model, controller, allowance } = call;
  const deps: Partial<Deps> = {
    ...settings.deps,
    model: allowance === undefined ? model : chargedModel(model, allowance),
    agent: { path },
  };
  const onEvent = caller?.deps.onEvent;
  if (onEvent !== undefined)
    deps.onEvent = (event: RunEvent) => onEvent(event.agent === undefined ? { ...event, agent: pathText } : event);
  if (deps.tracer === undefined && caller?.deps.tracer !== undefined) deps.tracer = caller.deps.tracer;
  const store = caller?.deps.runStore;
  const recording =
    store === undefined || caller === undefined || ctx.callId === undefined
      ? undefined
      : {
          store,
          runId: `${caller.runId}.${ctx.callId}`,
          record: { parent: caller.runId, agent: pathText } as JsonObject,
        };
  const input = inheriting(settings.inputOf?.(caller, ctx.callId) ?? childInput(args), caller);
  // An unrecorded caller that asks a person inline lends its way of asking: a child's held call is asked the same.
  if (deps.approve === undefined && caller?.deps.runStore === undefined && caller?.deps.approve !== undefined)
    deps.approve = caller.deps.approve;
  const decisions = ctx.callId === undefined ? undefined : caller?.decisions?.get(ctx.callId);
  // The runner, the journal and the stores behind a child load with the first call, not with every pipeline built.
  const { runChild } = await import('./child-run.js');
  const outcome = await runChild(settings.pipeline, input, { deps, signal: controller.signal }, recording, decisions);
  ctx.reportUsage?.(outcome.usage);
  // A paused child is a node once it has finished (the resumed call reports it).
  if (outcome.status !== 'interrupted')
    ctx.reportAgentUsage?.(
      agentUsageNode(settings.name, { ...outcome, usage: outcome.totalUsage, model: model.modelName }),
    );
  // A recorded child paused for approval pauses the caller (act); it can only be resumed when it is recorded.
  if (
    recording !== undefined &&
    outcome.status === 'interrupted' &&
    outcome.pending !== undefined &&
    outcome.pending.length > 0
  )
    throw pauseOf(settings.name, pathText, outcome);
  return resultOf(settings, outcome, ctx, pathText);
}

/** The pools of calling runs with children running now, by the caller's live usage (one object per run). */
const pools = new WeakMap<object, TokenPool>();

/** The caller's remaining tokens times the share, shared by its children running at once; none without a token limit. */
function allowanceFor(
  caller: ToolCaller | undefined,
  settings: Settings,
  controller: AbortController,
): TokenAllowance | undefined {
  if (caller?.tokenLimit === undefined) return undefined;
  let pool = pools.get(caller.usage);
  if (pool === undefined) {
    const left = caller.tokenLimit - caller.usage.inputTokens - caller.usage.outputTokens;
    pool = { limit: Math.floor(Math.max(0, left) * settings.budgetShare), spent: 0, active: 0 };
    pools.set(caller.usage, pool);
  }
  pool.active++;
  return new TokenAllowance(pool, controller, settings.name);
}

/** Once the last child running at once ends, the next call sees what they spent in the caller's usage instead. */
function leavePool(caller: ToolCaller): void {
  const pool = pools.get(caller.usage);
  if (pool !== undefined && --pool.active === 0) pools.delete(caller.usage);
}

/** A tainted caller's child starts tainted: the taint rides in its input (recorded, so a resume and a replay keep it). */
function inheriting(input: RunInput, caller: ToolCaller | undefined): RunInput {
  if (caller?.taint === undefined) return input;
  return { ...input, options: { ...input.options, taint: taintOption(caller.taint) } };
}

function childInput(args: { task: string; input?: unknown }): RunInput {
  if (args.input === undefined) return { task: args.task };
  // The structured input is shown to the child's model with the task, and kept in its options for stages to read.
  const input = args.input as JsonObject;
  return { task: `${args.task}\n\nInput (JSON): ${JSON.stringify(input)}`, options: { input } };
}

function pauseOf(name: string, pathText: string, outcome: ChildOutcome): ToolFailure {
  // Each decision names the agent that asks (a grandchild's already names its own path).
  const pending = (outcome.pending ?? []).map((item) =>
    item.agent === undefined ? { ...item, agent: pathText } : item,
  );
  return new ToolFailure(`agent "${name}" waits for a person: ${outcome.stopReason.message}`, {
    kind: 'paused',
    agent: { name, runId: outcome.runId, status: 'interrupted', stopKind: outcome.stopReason.kind },
    pending,
  });
}

function resultOf(settings: Settings, outcome: ChildOutcome, ctx: ToolContext, pathText: string): ToolOutput {
  const name = settings.name;
  if (outcome.status === 'completed') {
    const answer: AgentAnswer = { name, runId: outcome.runId };
    if (outcome.output !== undefined) answer.output = outcome.output;
    if (outcome.handoffs !== undefined) answer.handoffs = outcome.handoffs;
    // A child that read untrusted content (or started with it) answers with it: the answer taints the caller.
    if (outcome.taint !== undefined) answer.taint = { agent: pathText, ...outcome.taint };
    ctx.reportAgent?.(answer);
    return outcome.output !== undefined && settings.inputOf === undefined ? outcome.output : (outcome.answer ?? '');
  }
  const partial = outcome.answer ? ` Its partial answer: ${outcome.answer}` : '';
  throw new ToolFailure(
    `agent "${name}" ${outcome.status} (${outcome.stopReason.kind}): ${outcome.stopReason.message}.${partial}`,
    {
      kind: 'agent_stopped',
      agent: { name, runId: outcome.runId, status: outcome.status, stopKind: outcome.stopReason.kind },
    },
  );
}
