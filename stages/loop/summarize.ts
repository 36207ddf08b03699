// summarize (finalize): reads answer, stop, the plan, messages and the think/evaluate/modelFailure slots; streams text_delta when someone listens; writes answer, partial, usage and the summarize slot; returns no signal.
import type { Stage, StageContext } from '../../src/engine/stage.js';
import { addUsage, type RunState } from '../../src/engine/state.js';
import type { ChatMessage } from '../../src/model/types.js';
import type {} from './evaluate.js';
import type {} from './think.js';
import type {} from '../shared/model-failure.js';
import { shortText } from '../shared/text.js';
import type { ObserveSlot } from './observe-slot.js';
import { composeInstructions, oneLine, partialInstructions, renderResults } from '../shared/prompts.js';
import { messageOf } from '../../src/common/error-message.js';
import { callModel, temperatureOf } from '../shared/model-stream.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    summary: { path: SummaryPath; partial: boolean; text: string };
  }
}

export type SummaryPath = 'final' | 'composed' | 'composed_without_model' | 'partial' | 'partial_without_model';

export interface SummarizeSlot {
  path: SummaryPath;
  /** Why the run stopped early, as given to the summary (early-stop paths only). */
  stopReason?: string;
  /** Why the model could not write the summary, when it could not (or why it was not asked). */
  modelError?: string;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    summarize: SummarizeSlot;
  }
}

export interface SummarizeOptions {
  /** The pipeline's iteration cap, so an early stop caused by it can be named in the summary. */
  maxIterations?: number;
  temperature?: number;
  /** Ask the model for the summary after a cancel too (default false: the partial summary is built from the state). */
  modelAfterCancel?: boolean;
  /** The summary call's own deadline in ms (default 5,000, inside the runner's 10 s finalize limit). */
  timeoutMs?: number;
}

interface SummarizeSettings extends SummarizeOptions {
  readonly timeoutMs: number;
}

/** Stops after which no summary call is made: the budget it would spend is spent, or its time is. */
const spentBudgets = new Set(['budget_tokens', 'budget_cost', 'budget_time', 'budget_session']);
/** A model that has just failed like this will not write a summary either. */
const deadModel = new Set(['connection', 'auth']);

export function summarize(options: SummarizeOptions = {}): Stage {
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!(timeoutMs > 0)) throw new RangeError(`summarize: timeoutMs must be a positive number of ms, got ${timeoutMs}`);
  const settings: SummarizeSettings = Object.freeze({ ...options, timeoutMs });
  return {
    name: 'summarize',
    execute(state, ctx) {
      // The common case, an answer already given, finishes without a promise.
      // A plan's answer composed and judged in the loop (withJudgedPlanAnswer) is final too.
      const composed = state.summarize !== undefined;
      if ((!planIsDone(state) || composed) && state.answer !== undefined && state.answer.trim() !== '') {
        return finish(state, ctx, { path: 'final' }, state.answer, (state.partial ?? false) || stoppedEarly(state));
      }
      return writeSummary(state, ctx, settings);
    },
  };
}

function stoppedEarly(state: RunState): boolean {
  return state.stop !== undefined && state.stop.status !== 'completed';
}

/** Why no summary call should be made, or undefined when one may be. */
function noCallReason(state: RunState, settings: SummarizeSettings): string | undefined {
  const stop = state.stop;
  if (stop?.kind === 'cancelled' && settings.modelAfterCancel !== true) return 'not asked: the run was cancelled';
  if (stop !== undefined && spentBudgets.has(stop.kind)) return `not asked: ${stop.kind} is spent`;
  const failure = state.modelFailure;
  if (failure !== undefined && failure.iteration === state.iteration && deadModel.has(failure.kind))
    return `not asked: the model just failed (${failure.kind})`;
  return undefined;
}

function planIsDone(state: RunState): boolean {
  const plan = state.plan;
  return (
    plan !== undefined &&
    plan.results.length > 0 &&
    plan.steps.every((step) => step.status === 'completed' || step.status === 'failed' || step.status === 'replaced')
  );
}

/** A plan's final answer composed from its step results, or a best-effort answer after an early stop. */
function writeSummary(state: RunState, ctx: StageContext, options: SummarizeSettings): void | Promise<void> {
  const plan = state.plan;
  if (plan !== undefined && planIsDone(state)) {
    const results = renderResults(plan.results);
    // A replaced step's failure was answered by the steps that replaced it.
    const open = (id: string) => plan.steps.find((step) => step.id === id)?.status !== 'replaced';
    const partial =
      plan.results.some((result) => result.outcome !== 'completed' && open(result.id)) || stoppedEarly(state);
    const last = plan.results[plan.results.length - 1]!;
    const composed = (written: Written) =>
      written.ok
        ? finish(state, ctx, { path: 'composed' }, written.text, partial)
        : finish(
            state,
            ctx,
            { path: 'composed_without_model', modelError: written.problem },
            `${oneLine(last.output)}\n\nSteps:\n${results}`,
            partial,
          );
    return settle(
      writeWithModel(
        state,
        ctx,
        options,
        composeInstructions,
        `Task: ${state.input.task}\n\nStep results:\n${results}${rejection(state)}`,
      ),
      composed,
    );
  }
  // An early stop: one tool-less call from what the run knows, then a plain summary if even that fails.
  const stopReason = stopReasonOf(state, options.maxIterations);
  const done = completedWork(state);
  const remaining = remainingWork(state);
  const brief = [
    `Task: ${state.input.task}`,
    'Status: stopped early',
    `Completed work:\n${done.length > 0 ? done.join('\n') : 'none'}`,
    `Remaining work:\n${remaining.join('\n')}`,
    `Stop reason: ${stopReason}`,
  ].join('\n\n');
  return settle(writeWithModel(state, ctx, options, partialInstructions, brief), (written) => {
    if (written.ok) return finish(state, ctx, { path: 'partial', stopReason }, written.text, true);
    const plain = [
      `I could not finish this task: ${stopReason}.`,
      `What was done:\n${done.length > 0 ? done.map((line) => `- ${oneLine(line)}`).join('\n') : '- nothing yet'}`,
      `What remains:\n${remaining.map((line) => `- ${line}`).join('\n')}`,
    ].join('\n\n');
    return finish(state, ctx, { path: 'partial_without_model', stopReason, modelError: written.problem }, plain, true);
  });
}

/** The judge's reason for not accepting the last composed answer, for the next one's brief. */
function rejection(state: RunState): string {
  const last = state.answerJudge?.decisions.at(-1);
  return last === undefined || last.accept
    ? ''
    : `\n\nAn earlier answer was not accepted: ${last.reason}. Write a better one.`;
}

/** Applies `then` at once when no call was made, so a summary built from the state needs no promise. */
function settle(written: Written | Promise<Written>, then: (written: Written) => void): void | Promise<void> {
  return written instanceof Promise ? written.then(then) : then(written);
}

function finish(state: RunState, ctx: StageContext, slot: SummarizeSlot, answer: string, partial: boolean): void {
  state.summarize = slot;
  state.answer = answer;
  state.partial = partial;
  ctx.emit('summary', { path: slot.path, partial, text: shortText(answer) });
}

type Written = { ok: true; text: string } | { ok: false; problem: string };

/** One call with no tools and its own deadline; any failure (or an empty reply) is reported, never thrown. */
function writeWithModel(
  state: RunState,
  ctx: StageContext,
  options: SummarizeSettings,
  instructions: string,
  brief: string,
): Written | Promise<Written> {
  const model = ctx.deps.model;
  if (model === undefined) return { ok: false, problem: 'no model in deps' };
  const skipped = noCallReason(state, options);
  if (skipped !== undefined) return { ok: false, problem: skipped };
  const messages: ChatMessage[] = [
    { role: 'system', content: instructions },
    { role: 'user', content: brief },
  ];
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = ctx.signal === undefined ? deadline : AbortSignal.any([ctx.signal, deadline]);
  const asked = Promise.resolve().then(() =>
    callModel(model, { messages, purpose: 'summarize', ...temperatureOf(options) }, ctx, signal, true),
  );
  return raceSignal(asked, signal).then(
    (response) => {
      addUsage(state.usage, response.usage);
      const text = typeof response.content === 'string' ? response.content.trim() : '';
      return text === '' ? { ok: false, problem: 'the model returned an empty summary' } : { ok: true, text };
    },
    (error: unknown) => ({
      ok: false,
      problem: deadline.aborted
        ? `the summary call passed its own deadline of ${options.timeoutMs} ms`
        : messageOf(error),
    }),
  );
}

/** Settles when the signal aborts even if the model ignores it, so the fallback is written inside the finalize limit. */
function raceSignal<Value>(promise: Promise<Value>, signal: AbortSignal): Promise<Value> {
  return new Promise<Value>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

function stopReasonOf(state: RunState, maxIterations: number | undefined): string {
  if (state.evaluate?.verdict === 'stop') return state.evaluate.reason;
  // The runner records how the run ended just before finalize, whichever stage (or guard) ended it.
  const stop = state.stop;
  if (stop !== undefined && stop.status !== 'completed')
    return `${stop.message} (${stop.kind}${stop.stage ? `, stage ${stop.stage}` : ''})`;
  if (maxIterations !== undefined && state.iteration >= maxIterations)
    return `the iteration cap of ${maxIterations} was reached`;
  return 'the run ended before an answer was ready (a budget, a guard, an error or a cancellation)';
}

function completedWork(state: RunState): string[] {
  if (state.plan !== undefined) {
    const done = state.plan.results.map(
      (result) => `Step ${result.step} (${result.outcome}): ${result.description}\nResult: ${oneLine(result.output)}`,
    );
    return [...done, ...stepInProgress(state)];
  }
  // Without a plan the work is the tool traffic: each call with what it returned.
  const calls = new Map<string, string>();
  const lines: string[] = [];
  for (const message of state.messages) {
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) calls.set(call.id, `${call.name}(${shortText(call.arguments, 120)})`);
    if (message.role === 'tool')
      lines.push(`${calls.get(message.toolCallId) ?? message.name}\nResult: ${shortText(message.content, 300)}`);
  }
  return lines.slice(-8);
}

/** An early stop mid-step: what the tool calls of every step in progress (alone or side by side) returned is work done too. */
function stepInProgress(state: RunState): string[] {
  const plan = state.plan!;
  const lines: string[] = [];
  plan.steps.forEach((step, index) => {
    if (step.status !== 'in_progress') return;
    // Side by side, a step's observations are in its branch; alone, in the run's own slot.
    const observed =
      plan.maxParallel > 1 ? (plan.branches[step.id]?.slots.observe as ObserveSlot | undefined) : state.observe;
    const results = observed?.step === index ? observed.results : [];
    // A step with nothing returned yet is in the remaining work only.
    if (results.length === 0) return;
    const shown = results.map(
      (result) =>
        `${result.tool}(${shortText(result.arguments, 120)}) ${result.ok ? 'returned' : 'failed'}: ${shortText(result.content, 300)}`,
    );
    lines.push(
      `Step ${index + 1} (in progress when the run stopped): ${step.description}\nTool results so far:\n${shown.join('\n')}`,
    );
  });
  return lines;
}

function remainingWork(state: RunState): string[] {
  const pending = state.plan?.steps.filter((step) => step.status === 'pending' || step.status === 'in_progress') ?? [];
  if (pending.length > 0) return pending.map((step) => step.description);
  return ['give the final answer to the task'];
}
