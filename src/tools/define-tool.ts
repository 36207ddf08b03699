// defineTool: a tool declared with a zod object schema; its JSON schema for the model is computed once, here.
import { StageloopError } from '../common/stageloop-error.js';
import { z } from 'zod';
import type { JsonObject } from '../common/json.js';
import { isStrictCompatible } from '../model/structured-output.js';
import type { ChatUsage, ToolDefinition } from '../model/types.js';
import type { AgentAnswer } from '../engine/tool-port.js';
import type { AgentUsage } from '../engine/run-result.js';
import { checkPolicy, type ToolRateLimit, type ToolRetry } from './call-policy.js';

export type { ToolRateLimit, ToolRetry } from './call-policy.js';

/** Tool names the Chat Completions API accepts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Any zod object schema (plain, strict or loose: defineTool makes it strict). */
export type ToolParameters = z.ZodObject<z.core.$ZodShape, z.core.$ZodObjectConfig>;

export interface ToolContext {
  /** Aborted when the run is cancelled or the call's timeout passes; a well-behaved tool stops its work. */
  signal: AbortSignal;
  /** The model's id of this call (set by the executor). */
  callId?: string;
  /**
   * The same for every attempt of this call: a re-run after a crash, a resume, a replay (made from the run's id, the
   * iteration and the call's id). Send it where the effect happens (an HTTP API's `Idempotency-Key` header) so that
   * a call run again is not done twice.
   */
  readonly idempotencyKey: string;
  /** A tool that spends model tokens (an agent) says so: they count in the calling run's usage and budgets. */
  reportUsage?(usage: ChatUsage): void;
  /** An agent that completed says what it gave besides its answer (typed output, handoffs): it rides on the result. */
  reportAgent?(answer: AgentAnswer): void;
  /** An agent's run as a node of the calling run's `agents` tree (its usage, cost and own agents). */
  reportAgentUsage?(node: AgentUsage): void;
}

/**
 * What `execute` may return: text is passed on as is, anything else goes through JSON.stringify (so a plain object
 * typed by an interface works), and undefined or null count as an empty result.
 */
export type ToolOutput = string | number | boolean | null | undefined | object;

/** What a call does to the world: nothing (`none`), reads it (`read`), or changes it (`write`: a message sent, a file written, memory kept). */
export type ToolEffects = 'none' | 'read' | 'write';

export interface ToolSpec<Parameters extends ToolParameters> {
  name: string;
  /** What the tool does, when to use it, what it returns: the model chooses tools by this text. */
  description: string;
  /** Checks may be async; keep them free of side effects (the first call of a tool with an async check runs its sync checks twice). */
  parameters: Parameters;
  execute(args: z.infer<Parameters>, ctx: ToolContext): Promise<ToolOutput | void> | ToolOutput | void;
  /** This tool's timeout; the registry's default (30 s) applies when absent, a registry per-tool setting wins. */
  timeoutMs?: number;
  /** Ask for OpenAI strict mode. Default: true exactly when the schema allows it (see `isStrictCompatible`). */
  strict?: boolean;
  /** A person approves each call first (read by the approval stage): always, or when this says so for the call. */
  needsApproval?: NeedsApproval<z.infer<Parameters>>;
  /** Default `write`: a tool that says nothing is assumed to have side effects (the taint policy gates it after untrusted content). */
  effects?: ToolEffects;
  /** True when results bring text from outside (a web page, another server) that may carry instructions: they taint the context. */
  taints?: boolean;
  /** Running a call again with the same `ctx.idempotencyKey` does it once: a call cut off by a crash is run again, not held for a person. */
  idempotent?: boolean;
  /** Run a call again when it fails with an error marked retryable (`new ToolFailure(message, { retryable: true })`, a timeout). */
  retry?: ToolRetry;
  /** At most this many calls start per minute, counted across every registry holding this tool (a run's, its agents'). */
  rateLimit?: ToolRateLimit;
}

/** Whether a call needs a person's approval; `run` says which run and call is asking. */
export type NeedsApproval<Args> = boolean | ApprovalCheck<Args>['check'];

/** Method syntax on purpose: a tool with its own arguments type still fits a list of any tools. */
interface ApprovalCheck<Args> {
  check(args: Args, run: { runId: string; iteration: number; callId: string }): boolean | Promise<boolean>;
}

export interface Tool<Parameters extends ToolParameters = ToolParameters> {
  readonly name: string;
  readonly description: string;
  /** The schema arguments are validated against: the given one made strict (unknown keys are rejected). */
  readonly parameters: Parameters;
  /** What the model is sent; frozen, computed once. */
  readonly definition: ToolDefinition;
  readonly timeoutMs?: number;
  readonly needsApproval?: NeedsApproval<z.infer<Parameters>>;
  /** Absent means `write`. */
  readonly effects?: ToolEffects;
  readonly taints?: boolean;
  readonly idempotent?: boolean;
  readonly retry?: ToolRetry;
  readonly rateLimit?: ToolRateLimit;
  execute(args: z.infer<Parameters>, ctx: ToolContext): Promise<ToolOutput | void> | ToolOutput | void;
}

export function defineTool<Parameters extends ToolParameters>(spec: ToolSpec<Parameters>): Tool<Parameters> {
  if (!TOOL_NAME_PATTERN.test(spec.name)) {
    throw new StageloopError(
      'tool',
      `Tool name ${JSON.stringify(spec.name)} must match ${TOOL_NAME_PATTERN} (letters, digits, _ and -, at most 64)`,
    );
  }
  if (spec.description.trim() === '')
    throw new StageloopError('tool', `Tool "${spec.name}" needs a description: the model chooses tools by it`);
  if (spec.timeoutMs !== undefined && !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw new StageloopError('tool', `Tool "${spec.name}": timeoutMs must be a positive number`);
  }
  checkPolicy(spec.name, spec.retry, spec.rateLimit);
  // Unknown keys are an error, never silently dropped: the model learns which key it invented.
  const parameters = spec.parameters.strict() as unknown as Parameters;
  const schema = toJsonSchema(spec.name, parameters);
  const definition: ToolDefinition = {
    name: spec.name,
    description: spec.description,
    parameters: schema,
    strict: spec.strict ?? isStrictCompatible(schema),
  };
  deepFreeze(definition);
  const tool: Tool<Parameters> = {
    name: spec.name,
    description: spec.description,
    parameters,
    definition,
    effects: spec.effects ?? 'write',
    execute: spec.execute,
  };
  if (spec.taints === true) Object.assign(tool, { taints: true });
  if (spec.idempotent === true) Object.assign(tool, { idempotent: true });
  if (spec.needsApproval !== undefined) Object.assign(tool, { needsApproval: spec.needsApproval });
  if (spec.retry !== undefined) Object.assign(tool, { retry: Object.freeze({ ...spec.retry }) });
  if (spec.rateLimit !== undefined) Object.assign(tool, { rateLimit: Object.freeze({ ...spec.rateLimit }) });
  if (spec.timeoutMs !== undefined) return Object.freeze({ ...tool, timeoutMs: spec.timeoutMs });
  return Object.freeze(tool);
}

function toJsonSchema(name: string, parameters: ToolParameters): JsonObject {
  let schema: Record<string, unknown>;
  try {
    // io 'input': what the model must send (fields with defaults are optional for it).
    schema = z.toJSONSchema(parameters, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    throw new StageloopError(
      'tool',
      `Tool "${name}": its parameters cannot be expressed as JSON schema (${(error as Error).message})`,
      { cause: error },
    );
  }
  delete schema.$schema;
  return schema as JsonObject;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
