// taint (after act): reads turn.results and each tool's `taints`; writes the `taint` slot (where untrusted content came from). taint-gate (before act, policy refuse): refuses write calls once the context is tainted; returns no signal.
import type { Stage } from '../../../src/engine/stage.js';
import type { RunState } from '../../../src/engine/state.js';
import type { ToolCall } from '../../../src/model/types.js';
import type { Tool } from '../../../src/tools/define-tool.js';
import { effectsOf } from '../../../src/tools/effects.js';

export type TaintPolicy = 'ask' | 'refuse' | 'off';
export const taintPolicies: readonly TaintPolicy[] = ['ask', 'refuse', 'off'];

/** Where a piece of untrusted context came from. */
export interface TaintOrigin {
  /** `mcp` for an MCP server's tool, `web` for a tool that reads the web, `tool` for any other tainting tool. */
  origin: 'web' | 'mcp' | 'tool';
  tool: string;
  callId: string;
  iteration: number;
}

export interface TaintSlot {
  /** Every tainting result, in order; the context is tainted once there is one. */
  origins: TaintOrigin[];
}

declare module '../../../src/engine/state.js' {
  interface StageSlots {
    taint: TaintSlot;
  }
}

declare module '../../../src/engine/stage.js' {
  interface RunEvents {
    context_tainted: TaintOrigin;
    taint_refused: { tool: string; callId: string; origin: string };
  }
}

export type Lookup = { get(name: string): Tool | undefined };

const originOf = (tool: Tool): TaintOrigin['origin'] =>
  tool.name.includes('__')
    ? 'mcp'
    : tool.effects === 'read' && /web|search|fetch|browse|http/i.test(tool.name)
      ? 'web'
      : 'tool';

/** After act: each successful result of a tool whose results taint is recorded (and reported) as an origin. */
export function taintTracker(registry: Lookup): Stage {
  return {
    name: 'taint',
    execute(state, ctx) {
      for (const { call, result } of state.turn.results) {
        const tool = registry.get(call.name);
        if (tool?.taints !== true || !result.ok) continue;
        const entry: TaintOrigin = {
          origin: originOf(tool),
          tool: call.name,
          callId: call.id,
          iteration: state.iteration,
        };
        (state.taint ??= { origins: [] }).origins.push(entry);
        ctx.emit('context_tainted', { ...entry });
      }
    },
  };
}

/** Why this call must wait (or be refused): it writes, and untrusted content is in the context; undefined otherwise. */
export function taintReason(
  registry: Lookup,
  policy: Exclude<TaintPolicy, 'off'>,
): (call: ToolCall, state: RunState) => string | undefined {
  return (call, state) => {
    const first = state.taint?.origins[0];
    if (first === undefined || effectsOf(registry.get(call.name)) !== 'write') return undefined;
    const what = policy === 'ask' ? 'so it waits for approval' : 'so it is refused';
    return `untrusted content entered the context (the ${first.tool} result of iteration ${first.iteration}) and ${call.name} has side effects (effects: write), ${what} (--taint-policy ${policy})`;
  };
}

/** Before act, policy refuse: a write call after untrusted content becomes a `refused` result act does not run. */
export function taintGate(registry: Lookup): Stage {
  const reason = taintReason(registry, 'refuse');
  return {
    name: 'taint-gate',
    execute(state, ctx) {
      if (state.taint === undefined) return;
      const settled = new Set(state.turn.results.map((outcome) => outcome.call.id));
      for (const call of state.turn.toolCalls) {
        const because = settled.has(call.id) ? undefined : reason(call, state);
        if (because === undefined) continue;
        state.turn.results.push({
          call,
          result: {
            ok: false,
            error: { kind: 'refused', retryable: false, message: `Not run: ${because}.` },
            durationMs: 0,
          },
        });
        ctx.emit('taint_refused', { tool: call.name, callId: call.id, origin: state.taint.origins[0]!.tool });
      }
    },
  };
}
