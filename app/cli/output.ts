// Turns a RunResult into what the CLI prints: the --json object, or the human summary.
import { answeredBy, handoffChain, type HandoffLink } from '../../src/agents/handoff-conversation.js';
import type { RunResult, RunStatus } from '../../src/engine/runner.js';
import type { AgentUsage } from '../../src/engine/run-result.js';
import type { StepView } from '../../stages/shared/plan-steps.js';

/** A plan step in `--json`: the step as events show it, plus how it went. */
export interface PlanStepView extends StepView {
  result?: string;
  attempts?: number;
}

export interface PlanView {
  goal?: string;
  reasoning?: string;
  /**
   * In the planner's order (steps a replan added come after the ones it kept); a sub-step names its step in `parent`
   * and follows it (depth first).
   */
  steps: PlanStepView[];
}

export interface JsonOutput {
  runId: string;
  pipeline: string;
  status: RunStatus;
  answer: string | null;
  partial: boolean;
  stopReason: RunResult['stopReason'];
  iterations: number;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
    reasoningTokens: number;
    estimated: boolean;
  };
  plan?: PlanView;
  /** The agent runs under the run, each with usage, cost and its own agents. */
  agents?: AgentUsage[];
  /** With --output-schema: the final answer as the validated JSON value. */
  output?: unknown;
  /** Problems of finalize stages, which never change the status. */
  warnings: Array<{ stage: string; message: string }>;
  stages: Array<{ zone: string; name: string; calls: number; totalMs: number }>;
  pending?: RunResult['pending'];
  /** The agent whose answer this is, when the run handed off (the last of `handoffs`). */
  answeredBy?: string;
  /** The agents the run was handed to, in order, with their runs. */
  handoffs?: HandoffLink[];
  /** The limits in force (docs/guards.md): null is a limit that was off. */
  limits?: Record<string, number | null>;
}

/** Reads the plan slot without importing the stage that owns it (src/ never imports stages/). */
export function planOf(result: RunResult): PlanView | undefined {
  return planOfState(result.state);
}

/** The plan slot of a state (a result's, or a checkpoint's), as `--json` shows it. */
export function planOfState(state: unknown): PlanView | undefined {
  const slot: unknown =
    typeof state === 'object' && state !== null ? (state as Record<string, unknown>)['plan'] : undefined;
  if (typeof slot !== 'object' || slot === null || !Array.isArray((slot as { steps?: unknown }).steps))
    return undefined;
  const plan = slot as { goal?: unknown; reasoning?: unknown; steps: Array<Record<string, unknown>> };
  const view: PlanView = {
    steps: plan.steps.map((step, index) => {
      const shown: PlanStepView = {
        id: typeof step.id === 'string' ? step.id : `s${index + 1}`,
        description: String(step.description),
        dependsOn: Array.isArray(step.dependsOn) ? step.dependsOn.map(String) : [],
        status: String(step.status),
      };
      if (typeof step.tool === 'string') shown.tool = step.tool;
      if (typeof step.priority === 'number') shown.priority = step.priority;
      if (typeof step.parent === 'string') shown.parent = step.parent;
      if (typeof step.result === 'string') shown.result = step.result;
      if (typeof step.attempts === 'number') shown.attempts = step.attempts;
      return shown;
    }),
  };
  if (typeof plan.goal === 'string') view.goal = plan.goal;
  if (typeof plan.reasoning === 'string') view.reasoning = plan.reasoning;
  return view;
}

/** The final-output slot's value, when the run had an outputSchema and its answer matched it (src/ never imports stages/). */
export function printedOutputOf(result: RunResult): unknown {
  const slot: unknown = (result.state as unknown as Record<string, unknown>)['finalOutput'];
  return typeof slot === 'object' && slot !== null && (slot as { ok?: unknown }).ok === true
    ? (slot as { value: unknown }).value
    : undefined;
}

/** The limits slot (written by the guards' limits stage), read without importing it (src/ never imports stages/). */
export function limitsOf(result: RunResult): Record<string, number | null> | undefined {
  const slot: unknown = (result.state as unknown as Record<string, unknown>)['limits'];
  if (typeof slot !== 'object' || slot === null) return undefined;
  return Object.fromEntries(
    Object.entries(slot).filter(([, value]) => typeof value === 'number' || value === null),
  ) as Record<string, number | null>;
}

export function jsonOutput(result: RunResult): JsonOutput {
  const output: JsonOutput = {
    runId: result.runId,
    pipeline: result.pipeline,
    status: result.status,
    answer: result.answer,
    partial: result.partial,
    stopReason: result.stopReason,
    iterations: result.iterations,
    usage: {
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      cachedInputTokens: result.usage.cachedInputTokens,
      reasoningTokens: result.usage.reasoningTokens,
      ...(result.usage.cacheWriteInputTokens !== undefined && {
        cacheWriteInputTokens: result.usage.cacheWriteInputTokens,
      }),
      estimated: result.usage.estimated,
    },
    stages: result.stages.map((stage) => ({
      zone: stage.zone,
      name: stage.name,
      calls: stage.calls,
      totalMs: Math.round(stage.totalMs * 100) / 100,
    })),
    warnings: result.warnings.map((warning) => ({ stage: warning.stage, message: warning.message })),
  };
  const plan = planOf(result);
  if (plan !== undefined) output.plan = plan;
  const value = printedOutputOf(result);
  if (value !== undefined) output.output = value;
  if (result.pending !== undefined) output.pending = result.pending;
  if (result.agents !== undefined) output.agents = result.agents;
  const limits = limitsOf(result);
  if (limits !== undefined) output.limits = limits;
  const agent = answeredBy(result);
  if (agent !== undefined) Object.assign(output, { answeredBy: agent, handoffs: handoffChain(result.state.handoff) });
  return output;
}

/** 4: interrupted, waiting for a person's decision (docs/approvals.md). */
const exitCodes: Record<RunStatus, number> = { completed: 0, stopped: 3, failed: 1, cancelled: 130, interrupted: 4 };

export function exitCodeOf(status: RunStatus): number {
  return exitCodes[status];
}

function milliseconds(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

/** What the status line adds: a paused run waits, an early stop may still have a partial answer to show. */
function statusNote(result: RunResult): string {
  if (result.status === 'interrupted') return ' (waiting for a decision)';
  if (!result.partial) return '';
  return result.answer === null ? ' (no answer)' : ' (partial answer)';
}

/** The short summary printed after the answer: status, stop reason, iterations, tokens, time per stage. */
export function humanSummary(result: RunResult, wallMs: number): string {
  const { stopReason, usage } = result;
  const estimated = usage.estimated ? ' (estimated)' : '';
  const cached = usage.cachedInputTokens > 0 ? `, ${usage.cachedInputTokens} cached` : '';
  const reasoning = usage.reasoningTokens > 0 ? `, ${usage.reasoningTokens} reasoning` : '';
  const lines = [
    `status: ${result.status}${statusNote(result)} · stop: ${stopReason.kind}${stopReason.stage ? ` at ${stopReason.stage}` : ''} — ${stopReason.message}`,
    `iterations: ${result.iterations} · tokens: ${usage.inputTokens} in, ${usage.outputTokens} out${cached}${reasoning}${estimated} · time: ${milliseconds(wallMs)}`,
    `stages: ${result.stages
      .filter((stage) => stage.calls > 0)
      .map((stage) => `${stage.name} ${milliseconds(stage.totalMs)}${stage.calls > 1 ? ` (${stage.calls}x)` : ''}`)
      .join(' · ')}`,
  ];
  for (const warning of result.warnings) lines.push(`warning: finalize stage ${warning.stage}: ${warning.message}`);
  return lines.join('\n');
}
