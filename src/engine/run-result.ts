// What runPipeline resolves with, built once when the run is over.
import type { Pipeline } from './pipeline.js';
import type { PendingDecision } from './signal.js';
import { stageStats, type PreparedPipeline, type StageStats } from './stage-timings.js';
import type { RunEvents, Zone } from './stage.js';
import type { JsonValue } from '../common/json.js';
import type { RunOutcome, RunState, RunStatus, StopReason, Usage } from './state.js';
import type { AgentUsage } from './usage.js';

export type { AgentUsage };

export interface RunError {
  stage: string;
  zone: Zone;
  iteration: number;
  message: string;
  cause: unknown;
}

/** A finalize problem: kept on the result, never replacing the run's own status. */
export interface RunWarning {
  stage: string;
  message: string;
  cause?: unknown;
}

/** One agent run under a run (an agent called as a tool, or handed to), with the agents it ran in turn. */

declare module './state.js' {
  interface StageSlots {
    /** The agents this run called, in the order they finished (act writes them from the tool results). */
    agents: AgentUsage[];
  }
}

export interface RunResult {
  runId: string;
  pipeline: string;
  status: RunStatus;
  answer: string | null;
  /** True when the run did not complete, or a stage marked its answer as a best effort. */
  partial: boolean;
  stopReason: StopReason;
  iterations: number;
  usage: Usage;
  stages: StageStats[];
  state: RunState;
  error?: RunError;
  warnings: RunWarning[];
  /** Status `interrupted` only: what the run waits for. */
  pending?: PendingDecision[];
  /** The typed final output as plain JSON, when the run had an output schema and produced one (`outputOf` parses it). */
  output?: JsonValue;
  /** The agent runs under this run, each with its usage, cost and own agents (absent when it called none). */
  agents?: AgentUsage[];
}

export interface ResultParts {
  pipeline: Pipeline;
  /** The state as the result keeps it: a copy when a stage left running might still write to the live one. */
  state: RunState;
  outcome: RunOutcome;
  prepared: PreparedPipeline;
  timings: readonly number[];
  warnings: RunWarning[];
  error: RunError | undefined;
  pending?: readonly PendingDecision[] | undefined;
}

export function buildResult({
  pipeline,
  prepared,
  state,
  outcome,
  timings,
  warnings,
  error,
  pending,
}: ResultParts): RunResult {
  const { status, kind, stage, message } = outcome;
  const result: RunResult = {
    runId: state.runId,
    pipeline: pipeline.name,
    status,
    answer: state.answer ?? null,
    partial: status !== 'completed' || state.partial === true,
    stopReason: { kind, stage, message },
    iterations: state.iteration,
    usage: state.usage,
    stages: stageStats(prepared, timings),
    state,
    warnings,
  };
  if (error) result.error = error;
  if (pending) result.pending = [...pending];
  if (state.output !== undefined) result.output = state.output;
  if (state.agents !== undefined && state.agents.length > 0) result.agents = state.agents;
  return result;
}

/** The data of `run_finished`: the outcome a reader of the events alone needs. */
export function finishedData(result: RunResult): RunEvents['run_finished'] {
  const data: RunEvents['run_finished'] = {
    status: result.status,
    stopReason: result.stopReason,
    answer: result.answer,
    partial: result.partial,
    usage: { ...result.usage },
    iterations: result.iterations,
  };
  if (result.output !== undefined) data.output = result.output;
  return data;
}
