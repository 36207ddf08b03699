// think (iteration): reads messages (rendered per turn, stages/loop/turn-context.ts), nextTurn, the plan and deps.tools; writes messages, turn, answer/partial, usage, plan step results, the think slot and modelFailure; streams text_delta/tool_call_delta when someone listens; returns breakLoop 'completed' on a final answer without a plan, abortRun 'truncation' | 'invalid_tool_call' | 'cannot_answer' (the model says it cannot do the task).
import { abortRun, breakLoop, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import { addUsage, type RunState } from '../../src/engine/state.js';
import type { ChatModel, ChatRequest, ChatResponse, ChatUsage, FinishReason } from '../../src/model/types.js';
import { callsToRun, checkToolCalls, repairMessages, type ToolCallCheck } from './tool-call-check.js';
import type {} from './observe.js';
import { recordModelFailure } from '../shared/model-failure.js';
import { finishStep } from '../shared/plan-steps.js';
import { shortText } from '../shared/text.js';
import { truncationHint } from '../shared/prompts.js';
import { assistantMessage, callModel, modelNeeded, requireModel } from '../shared/model-stream.js';
import { turnContext, type TurnContextOptions } from './turn-context.js';
import { requestOf, startTurn, type ThinkConfig, type ThinkSlot, type ThinkTurn } from './think-turn.js';

export type { ThinkSlot } from './think-turn.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    model_reply: {
      purpose: 'think';
      finishReason: FinishReason;
      text: string;
      toolCalls: Array<{ name: string; arguments: string }>;
      usage: ChatUsage;
      /** The reply's reasoning, when the provider sent any. */
      reasoning?: string;
    };
    /** The text a reply wrote before its tool calls (the whole text): not the answer (fullStream's reset-step took it back). */
    tool_preamble: { text: string; toolCalls: string[] };
    truncation_retry: { attempt: number; maxRetries: number; toolCalls: string[] };
    repair_turn: { attempt: number; maxRepairs: number; problems: string[] };
    tool_call_repair_failed: { problems: string[]; fallback: 'renamed' | 'run_as_written' | 'stopped' };
    tool_calls_ignored: { toolCalls: string[]; reason: string };
    empty_reply: { finishReason: FinishReason };
    answer: { text: string; cutByLength: boolean; limit?: string };
  }
}

export interface ThinkOptions {
  /** Re-asks after a reply whose tool arguments were cut off by the length limit (default 3), then abortRun 'truncation'. */
  maxTruncationRetries?: number;
  /** Repair turns for a reply whose tool calls cannot be used (unknown tool, broken arguments or Action line), default 2. */
  maxRepairs?: number;
  /** Reasoning rounds per plan step (default 4); the last one must finish the step without tools. */
  maxStepToolRounds?: number;
  /** Keep readable reasoning and the text before tool calls (preambles, Thoughts) in the conversation (default false: journal, events and spans only; what a provider must get back is sent either way). */
  keepReasoning?: boolean;
  /** Offer the tools in deps.tools to the model (default true); false makes a tool-less responder. */
  useTools?: boolean;
  /** How each request is rendered from the conversation (stages/loop/turn-context.ts); false sends the whole conversation as it is. */
  context?: TurnContextOptions | false;
  temperature?: number;
  maxOutputTokens?: number;
}

export function think(options: ThinkOptions = {}): Stage {
  const maxTruncationRetries = options.maxTruncationRetries ?? 3;
  const maxStepToolRounds = options.maxStepToolRounds ?? 4;
  const useTools = options.useTools ?? true;
  const maxRepairs = options.maxRepairs ?? 2;
  if (!(maxTruncationRetries >= 0) || !(maxStepToolRounds >= 1) || !(Number.isInteger(maxRepairs) && maxRepairs >= 0)) {
    throw new RangeError('think: maxTruncationRetries and maxRepairs must be >= 0 and maxStepToolRounds >= 1');
  }
  const settings: Pick<ChatRequest, 'temperature' | 'maxOutputTokens'> = {};
  if (options.temperature !== undefined) settings.temperature = options.temperature;
  if (options.maxOutputTokens !== undefined) settings.maxOutputTokens = options.maxOutputTokens;
  const context = options.context === false ? undefined : turnContext(options.context);
  const config: ThinkConfig = Object.freeze({
    maxTruncationRetries,
    maxStepToolRounds,
    useTools,
    settings,
    maxRepairs,
    context,
    keepReasoning: options.keepReasoning ?? false,
  });
  return {
    name: 'think',
    needs: modelNeeded,
    execute(state, ctx) {
      return ask(state, ctx, requireModel(ctx, 'think'), startTurn(state, ctx, config), config);
    },
  };
}

/** One model call and what follows from its reply; a continuation rather than an async frame (a turn's hot path). */
function ask(
  state: RunState,
  ctx: StageContext,
  model: ChatModel,
  turn: ThinkTurn,
  config: ThinkConfig,
): Promise<Signal | void> {
  // Promise.resolve returns a native promise as is, and tolerates a model that answers without one.
  return Promise.resolve(callModel(model, requestOf(state, config, turn), ctx, ctx.signal, turn.step === null)).then(
    (response) => replied(state, ctx, model, turn, config, received(state, ctx, turn.slot, response)),
    (error: unknown) => {
      throw recordModelFailure(state, 'think', error);
    },
  );
}

function replied(
  state: RunState,
  ctx: StageContext,
  model: ChatModel,
  turn: ThinkTurn,
  config: ThinkConfig,
  response: ChatResponse,
): Signal | void | Promise<Signal | void> {
  const slot = turn.slot;
  // Cut-off arguments (or a cut Action line) are broken JSON: never run them; a long text answer cut by length is still an answer.
  const cutCall = response.toolCalls.length > 0 || response.toolCallProblem !== undefined;
  if (turn.tools !== undefined && response.finishReason === 'length' && cutCall) {
    if (slot.truncationRetries >= config.maxTruncationRetries) {
      slot.stopReason = `the model's tool-call arguments were cut off by the length limit ${slot.truncationRetries + 1} times in a row`;
      return abortRun(slot.stopReason, 'truncation');
    }
    slot.truncationRetries++;
    ctx.emit('truncation_retry', {
      attempt: slot.truncationRetries,
      maxRetries: config.maxTruncationRetries,
      toolCalls: response.toolCalls.map((call) => call.name),
    });
    state.messages.push({ role: 'user', content: truncationHint });
    return ask(state, ctx, model, turn, config);
  }
  if (turn.tools !== undefined && (response.toolCalls.length > 0 || response.toolCallProblem !== undefined)) {
    const check = checkToolCalls(response, turn.tools);
    if (check.problems.length > 0) return repairOrFallBack(state, ctx, model, turn, config, response, check);
  }
  // A small model sometimes answers with the question itself: asked once more, then taken as it is.
  if (
    turn.step === null &&
    response.toolCalls.length === 0 &&
    repeatsTask(response.content, state.input.task) &&
    (slot.repairs ?? 0) < config.maxRepairs
  ) {
    return repair(state, ctx, model, turn, config, response, [
      'Your reply only repeats the question. Answer it: use a tool if you need one, or give the answer itself.',
    ]);
  }
  return concluded(state, ctx, turn, config, response);
}

function repair(
  state: RunState,
  ctx: StageContext,
  model: ChatModel,
  turn: ThinkTurn,
  config: ThinkConfig,
  response: ChatResponse,
  problems: string[],
): Promise<Signal | void> {
  const slot = turn.slot;
  slot.repairs = (slot.repairs ?? 0) + 1;
  slot.repairsTotal = (slot.repairsTotal ?? 0) + 1;
  ctx.emit('repair_turn', { attempt: slot.repairs, maxRepairs: config.maxRepairs, problems });
  (turn.repairs ??= []).push(...repairMessages(response, problems));
  return ask(state, ctx, model, turn, config);
}

/** A reply whose tool calls cannot be used: shown its exact problems and asked again, at most maxRepairs times. */
function repairOrFallBack(
  state: RunState,
  ctx: StageContext,
  model: ChatModel,
  turn: ThinkTurn,
  config: ThinkConfig,
  response: ChatResponse,
  check: ToolCallCheck,
): Signal | void | Promise<Signal | void> {
  const slot = turn.slot;
  if ((slot.repairs ?? 0) < config.maxRepairs) return repair(state, ctx, model, turn, config, response, check.problems);
  // Out of repairs: a name in the wrong case is taken as meant; other calls run as written, and the model reads the tool's error.
  if (response.toolCalls.length === 0) {
    ctx.emit('tool_call_repair_failed', { problems: check.problems, fallback: 'stopped' });
    slot.stopReason = `the model's tool call could not be read after ${config.maxRepairs} repair turns: ${check.problems[0]}`;
    return abortRun(slot.stopReason, 'invalid_tool_call');
  }
  const renamed = new Map(check.renamed.map((call) => [call.id, call]));
  ctx.emit('tool_call_repair_failed', {
    problems: check.problems,
    fallback: renamed.size > 0 ? 'renamed' : 'run_as_written',
  });
  return concluded(state, ctx, turn, config, {
    ...response,
    toolCalls: response.toolCalls.map((call) => renamed.get(call.id) ?? call),
  });
}

/** Records the reply: tool calls to run, a finished plan step, or the final answer. */
function concluded(
  state: RunState,
  ctx: StageContext,
  turn: ThinkTurn,
  config: ThinkConfig,
  response: ChatResponse,
): Signal | void {
  const { step, lastRound } = turn;
  const calls = callsToRun(ctx.deps.callIdSuffix, step, response.toolCalls);
  if (calls.length > 0 && turn.tools !== undefined) {
    // The text before the calls (a preamble, a Thought) is reported (tool_preamble), not kept in the conversation.
    state.messages.push(
      assistantMessage(response, config.keepReasoning ? response.content : '', calls, config.keepReasoning),
    );
    state.turn.toolCalls = calls;
    return;
  }
  if (calls.length > 0)
    ctx.emit('tool_calls_ignored', {
      toolCalls: calls.map((call) => call.name),
      reason: 'no tools were offered in this call',
    });
  const text = response.content;
  if (text !== '' || calls.length === 0)
    state.messages.push(assistantMessage(response, text, undefined, config.keepReasoning));
  const cut = response.finishReason === 'length';
  if (response.cannotAnswer === true && text.trim() !== '') {
    // The model says it cannot do the task: its reply is shown, but the run did not get an answer.
    state.answer = text;
    state.partial = true;
    ctx.emit('answer', { text: shortText(text), cutByLength: false });
    return abortRun(`the model ${ctx.deps.model?.modelName ?? ''} says it cannot answer this task`, 'cannot_answer');
  }
  if (step !== null) {
    // Inside a plan a text reply finishes the current step; a last round without one, or a cut one, ends it as partial.
    if (cut || (lastRound && (calls.length > 0 || text.trim() === '')))
      finishStep(state, ctx, 'partial', partialStepOutput(state, step, config.maxStepToolRounds, text));
    else if (text.trim() !== '') finishStep(state, ctx, 'completed', text);
    else ctx.emit('empty_reply', { finishReason: response.finishReason });
    return;
  }
  if (text.trim() === '' && !cut) {
    ctx.emit('empty_reply', { finishReason: response.finishReason });
    return;
  }
  if (text.trim() !== '') state.answer = text;
  // An answer forced by a spent limit, or cut by the length limit, is the answer, but partial, and the run says why.
  state.partial = turn.limit !== undefined || cut;
  ctx.emit('answer', {
    text: shortText(text),
    cutByLength: response.finishReason === 'length',
    ...(turn.limit ? { limit: turn.limit.kind } : {}),
  });
  if (turn.limit !== undefined)
    return abortRun(`${turn.limit.reason}; the model answered in its final tool-less turn`, turn.limit.kind);
  if (cut) {
    turn.slot.stopReason = "the model's answer was cut off by the length limit (finish_reason length)";
    return abortRun(turn.slot.stopReason, 'truncation');
  }
  return breakLoop('the model gave its final answer', 'completed');
}

/** The reply is the task again, give or take case, spaces and punctuation. */
function repeatsTask(text: string, task: string): boolean {
  if (text.length > task.length * 1.2 + 20) return false;
  const reply = bareText(text);
  return reply !== '' && reply === bareText(task);
}

function bareText(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Bookkeeping for every reply, re-asks included: usage, the slot, the event. */
function received(state: RunState, ctx: StageContext, slot: ThinkSlot, response: ChatResponse): ChatResponse {
  addUsage(state.usage, response.usage);
  slot.calls++;
  slot.lastFinishReason = response.finishReason;
  ctx.emit('model_reply', () => ({
    purpose: 'think',
    finishReason: response.finishReason,
    text: shortText(response.content),
    toolCalls: response.toolCalls.map((call) => ({ name: call.name, arguments: shortText(call.arguments) })),
    usage: { ...response.usage },
    ...(response.reasoning !== undefined && { reasoning: shortText(response.reasoning) }),
  }));
  if (response.toolCalls.length > 0 && response.content.trim() !== '')
    ctx.emit('tool_preamble', () => ({
      text: response.content,
      toolCalls: response.toolCalls.map((call) => call.name),
    }));
  return response;
}

/** A step that ran out of rounds still reports what it had: its latest tool results and any text. */
function partialStepOutput(state: RunState, step: number, maxRounds: number, text: string): string {
  const observed = state.observe?.step === step ? state.observe.results : [];
  const latest = observed.filter((result) => result.ok).slice(-3);
  const had = latest.map((result) => `${result.tool}: ${result.content}`).join('; ');
  const parts = [`The step did not finish within ${maxRounds} rounds.`];
  if (had !== '') parts.push(`Latest tool results: ${had}.`);
  if (text.trim() !== '') parts.push(text.trim());
  return parts.join(' ');
}
