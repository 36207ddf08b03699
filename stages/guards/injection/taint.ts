// taint (after act): reads turn.results (each result's taint mark, else the tool's `taints`); writes the run's `taint` slot (where untrusted content came from; a plan step's view writes the run's). taint-gate (before act, policy refuse): refuses write calls once the context is tainted; returns no signal. The tool gate (src/tools/tool-gate.ts) enforces the same policy at every call: these stages show it.
import type { Stage } from '../../../src/engine/stage.js';
import type { RunState } from '../../../src/engine/state.js';
import type { ToolCall } from '../../../src/model/types.js';
import type { Tool } from '../../../src/tools/define-tool.js';
import { firstTaint, noteTaint, taintMarkOf, type TaintOrigin } from '../../../src/tools/gate-state.js';
import { markOf, taintReason as gateTaintReason, type TaintPolicy } from '../../../src/tools/tool-gate.js';

export type { TaintPolicy } from '../../../src/tools/tool-gate.js';
export type { TaintOrigin, TaintSlot } from '../../../src/tools/gate-state.js';
export const taintPolicies: readonly TaintPolicy[] = ['ask', 'refuse', 'off'];

declare module '../../../src/engine/stage.js' {
  interface RunEvents {
    context_tainted: TaintOrigin;
    taint_refused: { tool: string; callId: string; origin: string };
  }
}

export type Lookup = { get(name: string): Tool | undefined };

/** After act: each successful result of a tool whose results taint is recorded (and reported) as an origin. */
export function taintTracker(registry: Lookup): Stage {
  return {
    name: 'taint',
    quiet: true,
    execute(state, ctx) {
      for (const { call, result } of state.turn.results) {
        if (!result.ok) continue;
        const tool = registry.get(call.name);
        const mark = markOf(result) ?? (tool?.taints === true ? taintMarkOf(tool) : undefined);
        if (mark === undefined) continue;
        noteTaint(state, mark, call.id);
        ctx.emit('context_tainted', { ...mark, callId: call.id, iteration: state.iteration });
      }
    },
  };
}

/** Why this call must wait (or be refused): it writes, and untrusted content is in the context; undefined otherwise. */
export function taintReason(
  registry: Lookup,
  policy: Exclude<TaintPolicy, 'off'>,
): (call: ToolCall, state: RunState) => string | undefined {
  return (call, state) => gateTaintReason(call, registry.get(call.name), state, policy);
}

/** Before act, policy refuse: a write call after untrusted content becomes a `refused` result act does not run. */
export function taintGate(registry: Lookup): Stage {
  const reason = taintReason(registry, 'refuse');
  return {
    name: 'taint-gate',
    quiet: true,
    execute(state, ctx) {
      const first = firstTaint(state);
      if (first === undefined) return;
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
        ctx.emit('taint_refused', { tool: call.name, callId: call.id, origin: first.tool });
      }
    },
  };
}
