// ToolRegistry: the ToolBox the act stage uses; only registered tools can run, and every call resolves a ToolResult.
import type { ToolCall, ToolDefinition } from '../model/types.js';
import { inList, mapWithConcurrency } from './concurrency.js';
import type { Tool } from './define-tool.js';
import { StageloopError } from '../common/stageloop-error.js';
import { executeToolCall, type CallSettings } from './executor.js';
import type { CallEffects, ToolBox, ToolResult, WrapToolCall } from '../engine/tool-port.js';
import type { CallRun } from './call-context.js';
import { messageOf } from '../common/error-message.js';
import type { ToolRun } from '../engine/tool-run.js';
import { checkCanAsk, gatedTools, gateMatters, type GatePolicy } from './tool-gate.js';
import { taintMarkOf } from './gate-state.js';
import {
  checkPolicy,
  policed,
  policiesFor,
  type CallPolicy,
  type ToolRateLimit,
  type ToolRetry,
  type ToolTimer,
} from './call-policy.js';

export type { WrapToolCall };

export interface ToolRegistryOptions {
  /** Timeout of a tool that sets none itself. Default 30,000 ms. */
  defaultTimeoutMs?: number;
  /** Per tool name; wins over the tool's own `timeoutMs` (the operator decides, not the tool author). */
  timeoutsMs?: Readonly<Record<string, number>>;
  /** Output cap in characters. Default 16,000. */
  maxOutputChars?: number;
  /** Above the cap: 'truncate' (default, ok:true with a marker and `truncated: true`) or 'error' (`output_too_large`). */
  oversizedOutput?: 'truncate' | 'error';
  /** Calls of one `executeAll` running at once. Default 4. */
  concurrency?: number;
  wrapCall?: WrapToolCall;
  /** What the tool gate enforces on every run using these tools, besides each tool's needsApproval (tool-gate.ts). */
  approvals?: GatePolicy;
  /** Per tool name; wins over the tool's own `retry`, as timeouts do (call-policy.ts). */
  retries?: Readonly<Record<string, ToolRetry>>;
  /** Per tool name; wins over the tool's own `rateLimit`. */
  rateLimits?: Readonly<Record<string, ToolRateLimit>>;
  /** What retries and rate limits wait on (default: the system's time); a test gives one it moves itself. */
  timer?: ToolTimer;
}

export const TOOL_DEFAULTS = {
  defaultTimeoutMs: 30_000,
  maxOutputChars: 16_000,
  oversizedOutput: 'truncate',
  concurrency: 4,
} as const;

export class ToolRegistry implements ToolBox {
  /** Whether some call could be held (computed on the first run): a run that cannot be held uses the registry as is. */
  #gated: boolean | undefined;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #options: Readonly<ToolRegistryOptions>;
  readonly #names: readonly string[];
  readonly #definitions: readonly ToolDefinition[];
  /** Settings per tool name, computed once: a call allocates none. */
  readonly #settings: ReadonlyMap<string, CallSettings>;
  readonly #unknownToolSettings: CallSettings;
  /** Retry and rate limit per tool name, for the tools that have either. */
  readonly #policies: ReadonlyMap<string, CallPolicy>;

  /** Throws a `tool` StageloopError on two tools with one name, RangeError on an invalid option. */
  constructor(tools: readonly Tool[], options: ToolRegistryOptions = {}) {
    const byName = new Map<string, Tool>();
    for (const tool of tools) {
      if (byName.has(tool.name))
        throw new StageloopError('tool', `Two tools are named "${tool.name}": tool names must be unique`);
      byName.set(tool.name, tool);
    }
    checkOptions(options);
    this.#tools = byName;
    this.#names = Object.freeze([...byName.keys()]);
    this.#definitions = [...byName.values()].map((tool) => tool.definition);
    this.#options = Object.freeze({
      ...options,
      timeoutsMs: options.timeoutsMs && Object.freeze({ ...options.timeoutsMs }),
    });
    this.#settings = new Map([...byName.values()].map((tool) => [tool.name, settingsFor(tool, this.#options)]));
    this.#unknownToolSettings = settingsFor(undefined, this.#options);
    this.#policies = policiesFor([...byName.values()], this.#options);
  }

  /** Registered tool names, in registration order. */
  get names(): readonly string[] {
    return this.#names;
  }

  get options(): Readonly<ToolRegistryOptions> {
    return this.#options;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** A fresh array each time (think asks every turn), so a caller may change it. */
  definitions(): ToolDefinition[] {
    return this.#definitions.slice();
  }

  /** A new registry over the same tools with these options merged over the current ones. */
  with(options: ToolRegistryOptions): ToolRegistry {
    return new ToolRegistry([...this.#tools.values()], { ...this.#options, ...options });
  }

  /** A new registry whose calls run through `wrap`, around the wrapper already set (both keep working). */
  wrappingCalls(wrap: WrapToolCall): ToolRegistry {
    const inner = this.#options.wrapCall;
    return this.with({
      wrapCall: inner === undefined ? wrap : (call, execute) => wrap(call, () => inner(call, execute)),
    });
  }

  /** A new registry holding only the named tools (a permission boundary). Naming an unregistered tool throws. */
  only(names: readonly string[]): ToolRegistry {
    const missing = names.filter((name) => !this.#tools.has(name));
    if (missing.length > 0) throw new StageloopError('tool', `Cannot allow unregistered tools: ${missing.join(', ')}`);
    const allowed = new Set(names);
    return new ToolRegistry(
      [...this.#tools.values()].filter((tool) => allowed.has(tool.name)),
      this.#options,
    );
  }

  /** What a call of the named tool may do (an unknown name: a write, as a tool that says nothing). */
  effectsOf(name: string): CallEffects {
    const tool = this.#tools.get(name);
    return { effects: tool?.effects ?? 'write', idempotent: tool?.idempotent === true };
  }

  /**
   * The box one run's stages see: every call passes the run's tool gate (tool-gate.ts), when one could be held, and
   * knows its run (its idempotency key is made from it).
   */
  forRun(run: ToolRun): ToolBox {
    const policy = this.#options.approvals ?? {};
    if (!(this.#gated ??= gateMatters(this, policy))) return runView(this, run.state);
    checkCanAsk(this, policy, run);
    return gatedTools(this, policy, run, this.#options.concurrency ?? TOOL_DEFAULTS.concurrency);
  }

  /** Runs one call through `wrapCall`; `run`: the run it is made for. Never rejects. */
  execute(call: ToolCall, signal?: AbortSignal, run?: CallRun): Promise<ToolResult> {
    const tool = this.#tools.get(call.name);
    const settings = (tool && this.#settings.get(tool.name)) ?? this.#unknownToolSettings;
    const wrap = this.#options.wrapCall;
    const policy = tool && this.#policies.get(tool.name);
    // The usual call (no wrapper, no retry or rate limit) makes no closure.
    let result: Promise<ToolResult>;
    if (wrap === undefined && policy === undefined)
      result = executeToolCall(call, tool, settings, this.#names, signal, run);
    else {
      const once = () => executeToolCall(call, tool, settings, this.#names, signal, run);
      const attempts = policy === undefined ? once : () => policed(policy, signal, once);
      result = !wrap ? attempts() : wrapped(wrap, call, attempts);
    }
    // A tool whose results taint marks each of them: the run that reads one is tainted (journaled with the result).
    return tool?.taints === true ? result.then((outcome) => marked(tool, outcome)) : result;
  }

  executeAll(calls: readonly ToolCall[], signal?: AbortSignal, run?: CallRun): Promise<ToolResult[]> {
    // One call (the usual turn) goes straight to execute, without a closure for the lanes.
    if (calls.length === 1) return this.execute(calls[0]!, signal, run).then(inList);
    const limit = this.#options.concurrency ?? TOOL_DEFAULTS.concurrency;
    return mapWithConcurrency(calls, limit, (call) => this.execute(call, signal, run));
  }
}

/** The registry as one run sees it when nothing can be held: its calls made for that run (one object, no closures). */
class RunView implements ToolBox {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly run: CallRun,
  ) {}

  definitions(): ToolDefinition[] {
    return this.registry.definitions();
  }

  effectsOf(name: string): CallEffects {
    return this.registry.effectsOf(name);
  }

  executeAll(calls: readonly ToolCall[], signal?: AbortSignal): Promise<ToolResult[]> {
    return this.registry.executeAll(calls, signal, this.run);
  }

  wrappingCalls(wrap: WrapToolCall): ToolBox {
    return runView(this.registry.wrappingCalls(wrap), this.run);
  }
}

function runView(registry: ToolRegistry, run: CallRun): ToolBox {
  return new RunView(registry, run);
}

function marked(tool: Tool, result: ToolResult): ToolResult {
  return result.ok ? { ...result, taint: taintMarkOf(tool) } : result;
}

/** A wrapper that throws or rejects gives a failed result, as the executor would; not async, to save a frame per call. */
function wrapped(wrap: WrapToolCall, call: ToolCall, run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return Promise.resolve(wrap(call, run)).catch(wrapperFailed);
  } catch (error) {
    return Promise.resolve(wrapperFailed(error));
  }
}

function wrapperFailed(error: unknown): ToolResult {
  const message = messageOf(error);
  return {
    ok: false,
    error: { kind: 'failed', message: `The tool call wrapper failed: ${message}`, retryable: false },
    durationMs: 0,
  };
}

function settingsFor(tool: Tool | undefined, options: Readonly<ToolRegistryOptions>): CallSettings {
  const timeoutMs =
    (tool && options.timeoutsMs?.[tool.name]) ??
    tool?.timeoutMs ??
    options.defaultTimeoutMs ??
    TOOL_DEFAULTS.defaultTimeoutMs;
  return Object.freeze({
    timeoutMs,
    maxOutputChars: options.maxOutputChars ?? TOOL_DEFAULTS.maxOutputChars,
    oversizedOutput: options.oversizedOutput ?? TOOL_DEFAULTS.oversizedOutput,
  });
}

function checkOptions(options: ToolRegistryOptions): void {
  const positive = (label: string, value: number | undefined, integer: boolean) => {
    if (value === undefined) return;
    if (!(Number.isFinite(value) && value > 0) || (integer && !Number.isInteger(value))) {
      throw new RangeError(
        `Tool registry option ${label} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`,
      );
    }
  };
  positive('defaultTimeoutMs', options.defaultTimeoutMs, false);
  positive('maxOutputChars', options.maxOutputChars, true);
  positive('concurrency', options.concurrency, true);
  for (const [name, value] of Object.entries(options.timeoutsMs ?? {})) positive(`timeoutsMs.${name}`, value, false);
  for (const name of new Set([...Object.keys(options.retries ?? {}), ...Object.keys(options.rateLimits ?? {})]))
    checkPolicy(name, options.retries?.[name], options.rateLimits?.[name]);
}
