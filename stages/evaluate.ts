// evaluate (iteration): reads turn, the plan and the iteration; writes the evaluate slot (verdict and reason) and, on retry, nextTurn.notes; returns abortRun 'evaluate_stop' on a stop verdict.
import { abortRun } from '../src/engine/signal.js';
import type { Stage } from '../src/engine/stage.js';
import type { RunState } from '../src/engine/state.js';
import type { ToolCall } from '../src/model/types.js';
import type { ToolOutcome } from '../src/tools/types.js';
import type {} from './plan-slot.js';

declare module '../src/engine/stage.js' {
  interface RunEvents {
    verdict: { verdict: 'continue' | 'retry' | 'replan' | 'stop'; reason: string; step: number | null };
  }
}

export type Verdict = 'continue' | 'retry' | 'replan' | 'stop';

export interface VerdictRecord {
  iteration: number;
  verdict: Verdict;
  reason: string;
}

export interface EvaluateSlot extends VerdictRecord {
  /** The plan step the counters belong to (null without a plan). */
  step: number | null;
  /** Retry verdicts given for this step. */
  retries: number;
  /** Consecutive turns of this step in which some tool call failed or came back empty. */
  failures: number;
  /** The step for which "too many iterations" was already reported, so it is reported once. */
  overrunStep: number | null;
  history: VerdictRecord[];
}

declare module '../src/engine/state.js' {
  interface StageSlots {
    evaluate: EvaluateSlot;
  }
}

export interface EvaluateOptions {
  /** Retries after a transient tool error, per step (default 2). */
  maxRetriesPerStep?: number;
  /** Consecutive failing turns after which nothing useful can follow (default 4). */
  stopAfterFailures?: number;
}

export function evaluate(options: EvaluateOptions = {}): Stage {
  const maxRetries = options.maxRetriesPerStep ?? 2;
  const stopAfter = options.stopAfterFailures ?? 4;
  return {
    name: 'evaluate',
    execute(state, ctx) {
      const step = state.plan?.current ?? null;
      const previous = state.evaluate;
      const slot: EvaluateSlot =
        previous !== undefined && previous.step === step
          ? previous
          : { iteration: 0, verdict: 'continue', reason: '', step, retries: 0, failures: 0, overrunStep: null, history: previous?.history ?? [] };
      state.evaluate = slot;
      const [verdict, reason] = judge(state, slot, maxRetries, stopAfter);
      slot.iteration = state.iteration;
      slot.verdict = verdict;
      slot.reason = reason;
      slot.history.push({ iteration: state.iteration, verdict, reason });
      if (ctx.observed) ctx.emit('verdict', { verdict, reason, step: step === null ? null : step + 1 });
      if (verdict === 'stop') return abortRun(reason, 'evaluate_stop');
    },
  };
}

function judge(state: RunState, slot: EvaluateSlot, maxRetries: number, stopAfter: number): [Verdict, string] {
  const { toolCalls, results } = state.turn;
  if (toolCalls.length === 0) {
    slot.failures = 0;
    if (state.plan !== undefined && state.plan.steps[state.plan.current]?.status !== 'in_progress') return ['continue', `step ${state.plan.current + 1} ended`];
    return ['continue', state.answer !== undefined ? 'the model gave its answer' : 'no tool call this turn'];
  }
  let failed: Array<{ call: ToolCall; outcome: ToolOutcome | undefined }> | undefined;
  for (let index = 0; index < toolCalls.length; index++) {
    const call = toolCalls[index]!;
    // act keeps results in call order, so the entry at the same index is almost always the one.
    const outcome = results[index]?.call.id === call.id ? results[index] : results.find((entry) => entry.call.id === call.id);
    if (!succeeded(outcome)) (failed ??= []).push({ call, outcome });
  }
  if (failed === undefined) {
    slot.failures = 0;
    const overrun = planOverrun(state, slot);
    if (overrun !== undefined) return ['replan', overrun];
    return ['continue', toolCalls.length === 1 ? '1 tool call succeeded' : `${toolCalls.length} tool calls succeeded`];
  }
  slot.failures++;
  const described = failed.map(({ call, outcome }) => `${call.name} ${problemOf(outcome)}`).join('; ');
  const transient = failed.every(({ outcome }) => outcome !== undefined && !outcome.result.ok && outcome.result.error.retryable);
  if (slot.failures >= stopAfter) return ['stop', `tool calls failed in ${slot.failures} turns in a row (${described}): nothing useful can follow`];
  if (transient && slot.retries < maxRetries) {
    slot.retries++;
    // The model decides the next move, so the retry is asked of it through the next turn's notes.
    state.nextTurn.notes.push(`The last tool call failed with a transient error (${described}); you may make the same call again.`);
    return ['retry', `transient failure (${described}): retry ${slot.retries} of ${maxRetries}`];
  }
  if (state.plan !== undefined && (transient || slot.failures > maxRetries)) {
    return ['replan', `step ${state.plan.current + 1} keeps failing (${described})`];
  }
  return ['continue', `${described}: the model sees the error and can correct its call`];
}

/** An empty or failed result never counts as success. */
function succeeded(outcome: ToolOutcome | undefined): boolean {
  if (outcome === undefined || !outcome.result.ok) return false;
  return outcome.result.empty !== true && outcome.result.content.trim() !== '';
}

function problemOf(outcome: ToolOutcome | undefined): string {
  if (outcome === undefined) return 'was not run';
  if (outcome.result.ok) return 'returned nothing';
  if (outcome.result.error.kind === 'refused') return 'was refused by a guard';
  return `failed (${outcome.result.error.kind})`;
}

/** More than twice the plan's length in iterations: the plan is not working; said once per step. */
function planOverrun(state: RunState, slot: EvaluateSlot): string | undefined {
  const plan = state.plan;
  if (plan === undefined || slot.overrunStep === plan.current || state.iteration <= plan.steps.length * 2) return undefined;
  if (plan.steps[plan.current]?.status !== 'in_progress') return undefined;
  slot.overrunStep = plan.current;
  return `the run has used ${state.iteration} iterations, more than twice the plan's ${plan.steps.length} steps`;
}
