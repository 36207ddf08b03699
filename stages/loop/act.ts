// act (iteration): reads turn.toolCalls and turn.results, runs deps.tools (as the calling run: call-scope); writes turn.results (in call order), the act slot, the usage tools report, the run's taint, the gate's streaks of repeated failing calls (repeated-calls) and the decisions on calls the tool gate held; returns interruptRun (awaiting_approval) while a call waits for a person (tool-pause).
import { interruptRun, type Signal } from '../../src/engine/signal.js';
import type { RunEvents, Stage, StageContext } from '../../src/engine/stage.js';
import { addUsage, type RunState } from '../../src/engine/state.js';
import { asToolCaller, toolCallersWanted, type ToolCaller } from '../../src/tools/call-scope.js';
import type {} from '../guards/limits-slot.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolOutcome, ToolResult } from '../../src/engine/tool-port.js';
import {
  decidePaused,
  heldByGate,
  pausedRequest,
  pendingOfResult,
  type PausedCalls,
} from '../../src/tools/tool-pause.js';
import { allowAlways, firstTaint, markApproved, noteTaint } from '../../src/tools/gate-state.js';
import { markOf } from '../../src/tools/tool-gate.js';
import { noteRejected, noteStreak } from '../../src/tools/repeated-calls.js';
import { applyDecision } from '../shared/approval-apply.js';
import type { Decision } from '../../src/engine/decision-types.js';
import type { PendingDecision } from '../../src/engine/signal.js';
import { askPerson, decisionRecord } from '../shared/ask-person.js';
import { waitBegins, waitEnds } from '../shared/person-wait.js';
import { shortText } from '../shared/text.js';
import { IN_DOUBT, inDoubtSkipped } from '../../src/tools/in-doubt.js';
import { emitRetries } from './act-retries.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    tool_call: { id: string; name: string; arguments: string };
    tool_result:
      | { id: string; name: string; ok: true; result: string; durationMs: number }
      | { id: string; name: string; ok: false; error: { kind: string; message: string }; durationMs: number };
    /** A call a crash cut off after its intent was recorded: it may have run, and waits for a person (in-doubt.ts). */
    call_in_doubt: { callId: string; tool: string };
  }
}

/** Run totals of the tool calls act itself executed (pre-filled results are not counted). */
export interface ActSlot {
  executed: number;
  failed: number;
  /** Calls waiting for a person while the run is paused: a resume runs only these again. */
  paused?: PausedCalls;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    act: ActSlot;
  }
}

export interface ActOptions {
  /** Characters of a tool result shown in the `tool_result` event (default 200). */
  previewChars?: number;
}

export function act(options: ActOptions = {}): Stage {
  const previewChars = options.previewChars ?? 200;
  return {
    name: 'act',
    needs: { runsTools: true },
    execute(state, ctx) {
      if (state.act?.paused !== undefined) return resumePaused(state, ctx, previewChars);
      // A turn without tool calls returns at once, without a promise.
      return state.turn.toolCalls.length === 0 ? undefined : runCalls(state, ctx, previewChars);
    },
  };
}

function runCalls(state: RunState, ctx: StageContext, previewChars: number): Promise<Signal | void> | void {
  const calls = state.turn.toolCalls;
  const tools = ctx.deps.tools;
  const prefilled = state.turn.results;
  // A guard may have decided some calls already (a refusal): those keep their result and are not run.
  const decided =
    prefilled.length === 0
      ? undefined
      : new Map<string, ToolOutcome>(prefilled.map((outcome) => [outcome.call.id, outcome]));
  const pending = decided === undefined ? calls : calls.filter((call) => !decided.has(call.id));
  for (const call of pending)
    ctx.emit('tool_call', () => ({ id: call.id, name: call.name, arguments: call.arguments }));
  if (pending.length === 0 || tools === undefined)
    return record(state, ctx, pending, pending.map(noToolBox), decided, previewChars);
  // A continuation rather than an async function: one promise a turn instead of an async frame.
  // Promise.resolve returns a native promise as is and adopts any other thenable a custom ToolBox returns.
  // No closure unless a tool wants to know its caller: the usual turn runs the calls directly.
  const running = toolCallersWanted()
    ? asToolCaller(callerOf(state, ctx), () => Promise.resolve(tools.executeAll(pending, ctx.signal)))
    : Promise.resolve(tools.executeAll(pending, ctx.signal));
  return running.then((results) => settle(state, ctx, pending, results, decided, previewChars));
}

function settle(
  state: RunState,
  ctx: StageContext,
  calls: readonly ToolCall[],
  results: readonly ToolResult[],
  decided: Map<string, ToolOutcome> | undefined,
  previewChars: number,
): Promise<Signal | void> | void {
  if (results.some((result) => pendingOfResult(result) !== undefined))
    return pause(state, ctx, calls, results, decided, previewChars);
  return record(state, ctx, calls, results, decided, previewChars);
}

/** Some calls wait for a person: the finished ones are kept (a resume does not run them again), the others asked for. */
function pause(
  state: RunState,
  ctx: StageContext,
  calls: readonly ToolCall[],
  results: readonly ToolResult[],
  decided: Map<string, ToolOutcome> | undefined,
  previewChars: number,
): Promise<Signal | void> {
  const finished = calls.flatMap((call, index) => (pendingOfResult(results[index]) === undefined ? [index] : []));
  record(
    state,
    ctx,
    finished.map((index) => calls[index]!),
    finished.map((index) => results[index]!),
    decided,
    previewChars,
  );
  const paused: PausedCalls = { calls: {}, decided: {} };
  calls.forEach((call, index) => {
    const result = results[index]!;
    const pending = pendingOfResult(result);
    if (pending === undefined) return;
    paused.calls[call.id] = pending;
    // What the call spent before it paused counts now; its resumed run reports only what it spends after.
    if (result.usage !== undefined) addUsage(state.usage, result.usage);
  });
  state.act!.paused = paused;
  return resumePaused(state, ctx, previewChars);
}

/** Asks for the paused calls' decisions; once all are given, runs those calls again with them, else pauses the run. */
async function resumePaused(state: RunState, ctx: StageContext, previewChars: number): Promise<Signal | void> {
  const slot = state.act!;
  const paused = slot.paused!;
  // A resumed run: the time it waited paused is not the time budget's.
  waitEnds(state, ctx);
  const asked = await decidePaused(paused, (item, id) => askAbout(state, ctx, item, id));
  if ('waiting' in asked) {
    waitBegins(state, ctx);
    const [first] = asked.waiting;
    const what =
      asked.waiting.length === 1
        ? `the ${String(first!.tool ?? first!.kind)} call of ${typeof first!.agent === 'string' ? `agent ${first!.agent}` : 'a tool'}`
        : `${asked.waiting.length} calls of its tools`;
    return interruptRun(`waiting for a person to decide ${what}`, asked.waiting, 'awaiting_approval');
  }
  delete slot.paused;
  await applyHeld(state, paused, asked.decisions);
  const decided = new Map<string, ToolOutcome>(state.turn.results.map((outcome) => [outcome.call.id, outcome]));
  const calls = state.turn.toolCalls.filter((call) => asked.decisions.has(call.id) && !decided.has(call.id));
  const tools = ctx.deps.tools;
  if (tools === undefined) return record(state, ctx, calls, calls.map(noToolBox), decided, previewChars);
  const caller: ToolCaller = { ...callerOf(state, ctx), decisions: asked.decisions };
  const results = await asToolCaller(caller, () => Promise.resolve(tools.executeAll(calls, ctx.signal)));
  return settle(state, ctx, calls, results, decided, previewChars);
}

/** The gate's own holds (one decision under the call's id): a rejection is a refusal, an approval lets the gate run it. */
async function applyHeld(
  state: RunState,
  paused: PausedCalls,
  decisions: ReadonlyMap<string, Readonly<Record<string, Decision>>>,
): Promise<void> {
  for (const call of state.turn.toolCalls) {
    const decision = heldByGate(paused, call.id) ? decisions.get(call.id)?.[call.id] : undefined;
    if (decision === undefined) continue;
    if (!decision.approve && paused.calls[call.id]?.[0]?.kind === IN_DOUBT) {
      refuseInDoubt(state, call, decision.message);
      continue;
    }
    if (decision.approve) markApproved(state, call.id);
    else noteRejected(state, call);
    if ('always' in decision && decision.always === true) allowAlways(state, call.name);
    await applyDecision(state, call, decision, undefined);
  }
}

/** A call in doubt a person decided not to run again: the model reads their message in its place. */
function refuseInDoubt(state: RunState, call: ToolCall, message: string | undefined): void {
  const error = { kind: 'refused' as const, message: inDoubtSkipped(call.name, message), retryable: false };
  state.turn.results.push({ call, result: { ok: false, error, durationMs: 0 } });
}

/** A paused call's decision is asked as the approval stage asks one: the request event, the wait, the decided event. */
async function askAbout(
  state: RunState,
  ctx: StageContext,
  item: PendingDecision,
  id: string,
): Promise<Decision | undefined> {
  const request = pausedRequest(item, id);
  if (item.kind === IN_DOUBT) ctx.emit('call_in_doubt', { callId: id, tool: request.tool });
  const call: ToolCall = { id, name: request.tool, arguments: request.arguments };
  const answer = await askPerson(state, ctx, call, request.reason, request.agent);
  if ('pending' in answer) return undefined;
  const record = decisionRecord(state, call, answer.decision, 'person');
  ctx.emit('approval_decided', request.agent === undefined ? record : { ...record, agent: request.agent });
  return answer.decision;
}

/** What a tool that starts a run of its own (an agent) learns of this one. */
function callerOf(state: RunState, ctx: StageContext): ToolCaller {
  return {
    runId: state.runId,
    pipeline: state.pipeline,
    iteration: state.iteration,
    deps: ctx.deps,
    emit: ctx.emit,
    usage: state.usage,
    tokenLimit: state.limits?.maxTokens ?? undefined,
    task: state.input.task,
    messages: state.messages,
    taint: firstTaint(state),
    ...(state.input.session !== undefined && { session: state.input.session }),
    ...(state.input.user !== undefined && { user: state.input.user }),
  };
}

/** Stores the outcomes in call order, after any the guards decided. */
function record(
  state: RunState,
  ctx: StageContext,
  pending: readonly ToolCall[],
  results: readonly ToolResult[],
  decided: Map<string, ToolOutcome> | undefined,
  previewChars: number,
): void {
  const slot = (state.act ??= { executed: 0, failed: 0 });
  const outcomes: ToolOutcome[] = pending.map((call, index) => {
    const result = results[index] ?? missingResult(call);
    slot.executed++;
    if (!result.ok) slot.failed++;
    // An agent's tokens count in this run's usage (and so in its budgets).
    if (result.usage !== undefined) addUsage(state.usage, result.usage);
    if (result.agentUsage !== undefined) (state.agents ??= []).push(result.agentUsage);
    // Untrusted content taints the run (the gate noted it live; a replay, served the result, notes it here).
    const mark = markOf(result);
    if (mark !== undefined) noteTaint(state, mark, call.id);
    // The gate's repeat rule: a marked failure extends the call's streak, a success ends it.
    if (!result.ok ? result.streak === true : state.repeatedCalls !== undefined) noteStreak(state, call, result);
    if (result.retries !== undefined) emitRetries(ctx, call, result, previewChars);
    ctx.emit('tool_result', () => resultEvent(call, result, previewChars));
    return { call, result };
  });
  if (decided === undefined) {
    state.turn.results = outcomes;
    return;
  }
  const calls = state.turn.toolCalls;
  for (const outcome of outcomes) decided.set(outcome.call.id, outcome);
  const callIds = new Set(calls.map((call) => call.id));
  const extra = state.turn.results.filter((outcome) => !callIds.has(outcome.call.id));
  // A call still paused has no outcome yet.
  state.turn.results = [...calls.flatMap((call) => decided.get(call.id) ?? []), ...extra];
}

function resultEvent(call: ToolCall, result: ToolResult, limit: number): RunEvents['tool_result'] {
  const durationMs = Math.round(result.durationMs);
  if (result.ok)
    return { id: call.id, name: call.name, ok: true, result: shortText(result.content, limit), durationMs };
  return {
    id: call.id,
    name: call.name,
    ok: false,
    error: { kind: result.error.kind, message: shortText(result.error.message, limit) },
    durationMs,
  };
}

function noToolBox(call: ToolCall): ToolResult {
  return {
    ok: false,
    error: {
      kind: 'unknown_tool',
      message: `No tools are available in this run, so "${call.name}" cannot be called.`,
      retryable: false,
    },
    durationMs: 0,
  };
}

function missingResult(call: ToolCall): ToolResult {
  return {
    ok: false,
    error: { kind: 'failed', message: `The tool box returned no result for "${call.name}".`, retryable: false },
    durationMs: 0,
  };
}
