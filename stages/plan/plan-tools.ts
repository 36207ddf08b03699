// The tools a plan step sees: its bound tool first, and the `replan` tool through which the model asks for a new
// plan (answered here, never sent to the tool box, so it costs no tool call). Not a stage: perStep and replan use it.
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall, ToolDefinition } from '../../src/model/types.js';
import type { ToolBox, ToolResult } from '../../src/engine/tool-port.js';
import type { PlanStep } from './plan-slot.js';

export const replanToolName = 'replan';

const replanDefinition: ToolDefinition = {
  name: replanToolName,
  description:
    'Ask for a new plan when the current step cannot succeed as planned (its approach is wrong or its inputs are missing). Give the reason.',
  parameters: {
    type: 'object',
    properties: { reason: { type: 'string', description: 'Why the plan must change' } },
    required: ['reason'],
    additionalProperties: false,
  },
  strict: true,
};

/** The step's tool box, or the run's own when the step changes nothing about it. */
export function stepTools(
  tools: ToolBox | undefined,
  state: RunState,
  step: PlanStep,
  replanTool: boolean,
): ToolBox | undefined {
  if (tools === undefined || (!replanTool && step.tool === undefined)) return tools;
  const offerReplan = replanTool && !tools.definitions().some((tool) => tool.name === replanToolName);
  if (!offerReplan && step.tool === undefined) return tools;
  return {
    definitions() {
      const list = tools.definitions();
      const bound = list.filter((tool) => tool.name === step.tool);
      const ordered = bound.length === 0 ? list : [...bound, ...list.filter((tool) => tool.name !== step.tool)];
      return offerReplan ? [...ordered, replanDefinition] : ordered;
    },
    async executeAll(calls: readonly ToolCall[], signal?: AbortSignal): Promise<ToolResult[]> {
      if (!offerReplan || !calls.some((call) => call.name === replanToolName)) return tools.executeAll(calls, signal);
      const others = calls.filter((call) => call.name !== replanToolName);
      const results = others.length > 0 ? await tools.executeAll(others, signal) : [];
      let next = 0;
      return calls.map((call) => (call.name === replanToolName ? requestReplan(state, step, call) : results[next++]!));
    },
  };
}

function requestReplan(state: RunState, step: PlanStep, call: ToolCall): ToolResult {
  let reason = '';
  try {
    const value = JSON.parse(call.arguments) as { reason?: unknown };
    if (typeof value.reason === 'string') reason = value.reason.trim();
  } catch {
    reason = call.arguments.trim();
  }
  (state.plan!.replanRequests ??= []).push({ id: step.id, reason: reason === '' ? 'no reason given' : reason });
  return {
    ok: true,
    content: 'A new plan was requested; this step ends here and the replanner decides what follows.',
    durationMs: 0,
  };
}

/** Whether the model asked for a new plan while working on this step. */
export function replanRequested(state: RunState, id: string): string | undefined {
  return state.plan?.replanRequests?.find((request) => request.id === id)?.reason;
}

/** The reasons the model gave for a new plan (all steps), cleared once the replanner is asked. */
export function takeReplanRequest(state: RunState): string | undefined {
  const plan = state.plan;
  if (plan === undefined || (plan.replanRequests ?? []).length === 0) return undefined;
  const reasons = plan.replanRequests.map((request) => `${request.id}: ${request.reason}`).join('; ');
  plan.replanRequests = [];
  return reasons;
}
