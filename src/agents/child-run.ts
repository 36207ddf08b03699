// Starting an agent's run for a tool call. In a recorded run the child is recorded in the same store under an id made
// from the caller's run and call, so a resume of the caller finds it: a finished child gives its recorded outcome,
// an unfinished one is resumed where it stopped (nothing it finished runs again), and a new one starts. A child
// paused for approval stays paused until the caller is resumed with its decisions, which resume the child.
import type { JsonObject, JsonValue } from '../common/json.js';
import type { Decision } from '../engine/decision-types.js';
import { runPipeline as runRecorded, resumeRun } from '../durable/durable-run.js';
import { outsideBranch } from '../engine/run-scope.js';
import type { Pipeline } from '../engine/pipeline.js';
import { runPipeline, type RunOptions, type RunResult } from '../engine/runner.js';
import type { AgentUsage } from '../engine/run-result.js';
import type { RunInput, RunState, RunStatus, StopReason, Usage } from '../engine/state.js';
import type { PendingDecision } from '../engine/signal.js';
import type { RunStore } from '../store/types.js';
import { handoffChain, type HandoffLink } from './handoff-conversation.js';
import type { TaintMark } from '../engine/tool-port.js';
import { firstTaint } from '../tools/gate-state.js';

/** What the calling run needs of a child's result. */
export interface ChildOutcome {
  runId: string;
  status: RunStatus;
  answer: string | null;
  output?: JsonValue;
  /** The tokens this call spent: a paused child resumed reports only those since its pause (the caller has the rest). */
  usage: Usage;
  /** Every token of the child's run, from its start (its `agents` node shows these). */
  totalUsage: Usage;
  /** The agents the child's run called in turn. */
  agents?: AgentUsage[];
  stopReason: StopReason;
  pending?: PendingDecision[];
  /** The agents its run was handed on to, in order, when it handed off (the last one answered). */
  handoffs?: HandoffLink[];
  /** The first untrusted source its run read or started with: its answer taints the caller. */
  taint?: TaintMark;
}

export interface ChildRecording {
  store: RunStore;
  /** The child's run id: the caller's run id and the call's id. */
  runId: string;
  record: JsonObject;
}

export function runChild(
  pipeline: Pipeline,
  input: RunInput,
  options: RunOptions,
  recording: ChildRecording | undefined,
  decisions?: Readonly<Record<string, Decision>>,
): Promise<ChildOutcome> {
  // Called from a plan step, the child is still not that step's: its journal and events are its own run's.
  return outsideBranch(() => startChild(pipeline, input, options, recording, decisions));
}

async function startChild(
  pipeline: Pipeline,
  input: RunInput,
  options: RunOptions,
  recording: ChildRecording | undefined,
  decisions: Readonly<Record<string, Decision>> | undefined,
): Promise<ChildOutcome> {
  if (recording === undefined) return outcomeOf(await runPipeline(pipeline, input, options));
  const { store, runId, record } = recording;
  const existing = await store.get(runId);
  if (existing === undefined) {
    return outcomeOf(await runRecorded(pipeline, input, { ...options, store, record, runId }));
  }
  const recorded = existing.outcome === null ? undefined : outcomeOf(existing.outcome.result as unknown as RunResult);
  if (recorded !== undefined && (existing.status === 'completed' || existing.status === 'stopped'))
    return withRecordedHandoffs(store, recorded);
  if (recorded !== undefined && existing.status === 'interrupted') {
    // Still waiting (the caller ran the call again without its decisions): the same pause.
    if (decisions === undefined) return recorded;
    const resumed = outcomeOf(await resumeRun(store, runId, { ...options, pipeline, decisions }));
    resumed.usage = usageSince(resumed.usage, recorded.usage);
    return resumed;
  }
  // The caller's process died while the child ran (or it was cancelled with it): the child continues from its last
  // checkpoint. Its old owner was the caller's, which this process has taken over.
  return outcomeOf(await resumeRun(store, runId, { ...options, pipeline, takeOver: true }));
}

function usageSince(total: Usage, before: Usage): Usage {
  return {
    inputTokens: total.inputTokens - before.inputTokens,
    outputTokens: total.outputTokens - before.outputTokens,
    cachedInputTokens: total.cachedInputTokens - before.cachedInputTokens,
    reasoningTokens: total.reasoningTokens - before.reasoningTokens,
    ...(total.cacheWriteInputTokens && {
      cacheWriteInputTokens: total.cacheWriteInputTokens - (before.cacheWriteInputTokens ?? 0),
    }),
    estimated: total.estimated,
  };
}

/** A stored outcome has no state: the handoffs a finished child made and its taint are read from its last checkpoint. */
async function withRecordedHandoffs(store: RunStore, outcome: ChildOutcome): Promise<ChildOutcome> {
  if (outcome.status !== 'completed') return outcome;
  const state = (await store.latestCheckpoint(outcome.runId))?.state as Partial<RunState> | undefined;
  return state === undefined ? outcome : withHandoffs(outcome, state);
}

function outcomeOf(
  result: Pick<RunResult, 'runId' | 'status' | 'answer' | 'output' | 'usage' | 'stopReason' | 'pending' | 'agents'> & {
    state?: RunState;
  },
): ChildOutcome {
  const outcome: ChildOutcome = {
    runId: result.runId,
    status: result.status,
    answer: result.answer,
    usage: { ...result.usage },
    totalUsage: { ...result.usage },
    stopReason: { ...result.stopReason },
  };
  if (result.agents !== undefined) outcome.agents = result.agents;
  if (result.output !== undefined) outcome.output = result.output;
  if (result.pending !== undefined) outcome.pending = result.pending;
  return result.state === undefined ? outcome : withHandoffs(outcome, result.state);
}

function withHandoffs(outcome: ChildOutcome, state: Partial<RunState>): ChildOutcome {
  const chain = handoffChain(state.handoff);
  if (chain.length > 0) outcome.handoffs = chain;
  const taint = state.input === undefined ? undefined : firstTaint(state as RunState);
  if (taint !== undefined)
    outcome.taint = { origin: taint.origin, tool: taint.tool, ...(taint.agent && { agent: taint.agent }) };
  return outcome;
}
