// summarize (finalize): reads answer, the plan, messages and the think/evaluate slots; writes answer, partial, usage and the summarize slot; returns no signal.
import type { Stage, StageContext } from '../src/engine/stage.js';
import { addUsage, type RunState } from '../src/engine/state.js';
import type { ChatMessage } from '../src/model/types.js';
import type {} from './evaluate.js';
import type {} from './think.js';
import { temperatureOf } from './plan.js';
import { shortText } from './plan-steps.js';
import { composeInstructions, oneLine, partialInstructions, renderResults } from './prompts.js';
import { messageOf } from '../src/common/error-message.js';

export type SummaryPath = 'final' | 'composed' | 'composed_without_model' | 'partial' | 'partial_without_model';

export interface SummarizeSlot {
  path: SummaryPath;
  /** Why the run stopped early, as given to the summary (early-stop paths only). */
  stopReason?: string;
  /** Why the model could not write the summary, when it could not. */
  modelError?: string;
}

declare module '../src/engine/state.js' {
  interface StageSlots {
    summarize: SummarizeSlot;
  }
}

export interface SummarizeOptions {
  /** The pipeline's iteration cap, so an early stop caused by it can be named in the summary. */
  maxIterations?: number;
  temperature?: number;
}

export function summarize(options: SummarizeOptions = {}): Stage {
  return {
    name: 'summarize',
    execute(state, ctx) {
      // The common case, an answer already given, finishes without a promise.
      if (!planIsDone(state) && state.answer !== undefined && state.answer.trim() !== '') {
        return finish(state, ctx, { path: 'final' }, state.answer, state.partial ?? false);
      }
      return writeSummary(state, ctx, options);
    },
  };
}

function planIsDone(state: RunState): boolean {
  const plan = state.plan;
  return plan !== undefined && plan.results.length > 0 && plan.steps.every((step) => step.status === 'completed' || step.status === 'failed');
}

/** A plan's final answer composed from its step results, or a best-effort answer after an early stop. */
async function writeSummary(state: RunState, ctx: StageContext, options: SummarizeOptions): Promise<void> {
  const plan = state.plan;
  if (plan !== undefined && planIsDone(state)) {
    const results = renderResults(plan.results);
    const written = await writeWithModel(state, ctx, options, composeInstructions, `Task: ${state.input.task}\n\nStep results:\n${results}`);
    const partial = plan.results.some((result) => result.outcome !== 'completed');
    if (written.ok) return finish(state, ctx, { path: 'composed' }, written.text, partial);
    const last = plan.results[plan.results.length - 1]!;
    return finish(state, ctx, { path: 'composed_without_model', modelError: written.problem }, `${oneLine(last.output)}\n\nSteps:\n${results}`, partial);
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
  const written = await writeWithModel(state, ctx, options, partialInstructions, brief);
  if (written.ok) return finish(state, ctx, { path: 'partial', stopReason }, written.text, true);
  const plain = [
    `I could not finish this task: ${stopReason}.`,
    `What was done:\n${done.length > 0 ? done.map((line) => `- ${oneLine(line)}`).join('\n') : '- nothing yet'}`,
    `What remains:\n${remaining.map((line) => `- ${line}`).join('\n')}`,
  ].join('\n\n');
  return finish(state, ctx, { path: 'partial_without_model', stopReason, modelError: written.problem }, plain, true);
}

function finish(state: RunState, ctx: StageContext, slot: SummarizeSlot, answer: string, partial: boolean): void {
  state.summarize = slot;
  state.answer = answer;
  state.partial = partial;
  ctx.emit('summary', { path: slot.path, partial, text: shortText(answer) });
}

type Written = { ok: true; text: string } | { ok: false; problem: string };

/** One call with no tools; any failure (or an empty reply) is reported, never thrown, so a summary always follows. */
async function writeWithModel(state: RunState, ctx: StageContext, options: SummarizeOptions, instructions: string, brief: string): Promise<Written> {
  const model = ctx.deps.model;
  if (model === undefined) return { ok: false, problem: 'no model in deps' };
  const messages: ChatMessage[] = [
    { role: 'system', content: instructions },
    { role: 'user', content: brief },
  ];
  try {
    const response = await model.chat({ messages, purpose: 'summarize', ...temperatureOf(options) }, ctx.signalIfAbortable);
    addUsage(state.usage, response.usage);
    const text = response.content.trim();
    return text === '' ? { ok: false, problem: 'the model returned an empty summary' } : { ok: true, text };
  } catch (error) {
    return { ok: false, problem: messageOf(error) };
  }
}

function stopReasonOf(state: RunState, maxIterations: number | undefined): string {
  if (state.evaluate?.verdict === 'stop') return state.evaluate.reason;
  // The runner records how the run ended just before finalize, whichever stage (or guard) ended it.
  const stop = state.stop;
  if (stop !== undefined && stop.status !== 'completed') return `${stop.message} (${stop.kind}${stop.stage ? `, stage ${stop.stage}` : ''})`;
  if (maxIterations !== undefined && state.iteration >= maxIterations) return `the iteration cap of ${maxIterations} was reached`;
  return 'the run ended before an answer was ready (a budget, a guard, an error or a cancellation)';
}

function completedWork(state: RunState): string[] {
  if (state.plan !== undefined) {
    return state.plan.results.map((result) => `Step ${result.step} (${result.outcome}): ${result.description}\nResult: ${oneLine(result.output)}`);
  }
  // Without a plan the work is the tool traffic: each call with what it returned.
  const calls = new Map<string, string>();
  const lines: string[] = [];
  for (const message of state.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, `${call.name}(${shortText(call.arguments, 120)})`);
    if (message.role === 'tool') lines.push(`${calls.get(message.toolCallId) ?? message.name}\nResult: ${shortText(message.content, 300)}`);
  }
  return lines.slice(-8);
}

function remainingWork(state: RunState): string[] {
  const pending = state.plan?.steps.filter((step) => step.status === 'pending' || step.status === 'in_progress') ?? [];
  if (pending.length > 0) return pending.map((step) => step.description);
  return ['give the final answer to the task'];
}
