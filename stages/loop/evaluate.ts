// evaluate (iteration): reads turn, the plan, the iteration and the answer; writes the evaluate and answerJudge slots and, on retry, nextTurn.notes; returns abortRun 'evaluate_stop' on a stop verdict; with a judge hook, breakLoop 'completed' on an accepted answer or abortRun 'judge_rejected'.
import { abortRun, breakLoop, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import { isPromiseLike } from '../../src/common/promise-like.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolOutcome } from '../../src/engine/tool-port.js';
import type {} from '../plan/plan-slot.js';
import type { EvaluateSlot, Verdict } from './evaluate-slot.js';
import { applyStepJudgement, endedStepResult, type StepJudgeHook } from './step-judge.js';
import type {} from './think-turn.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    verdict: { verdict: 'continue' | 'retry' | 'replan' | 'stop'; reason: string; step: number | null };
    answer_judged: { accept: boolean; reason: string };
  }
}

export type { Verdict, VerdictRecord, EvaluateSlot } from './evaluate-slot.js';
export type { StepJudgeHook, StepJudgement } from './step-judge.js';

/** The judge hook's bookkeeping: an answer waiting for it, the retries it granted, its decisions. */
export interface AnswerJudgeSlot {
  pending: boolean;
  retries: number;
  decisions: AnswerJudgement[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    answerJudge: AnswerJudgeSlot;
  }
}

/** A judge's decision on the final answer. */
export interface AnswerJudgement {
  accept: boolean;
  reason: string;
}

/** Checks the final answer against the goal after the rules; sync or async, a model call allowed (see answerJudge). */
export type AnswerJudgeHook = (state: RunState) => AnswerJudgement | Promise<AnswerJudgement>;

export interface EvaluateOptions {
  /**
   * Called when the model gave its final answer (think wrapped in withJudgedAnswer, as the built-in pipelines do when
   * this is set), after the rules. Accepted: the run completes. Rejected: the model is told why and answers again
   * (`maxJudgeRetries` times, default 1), then the run stops with `judge_rejected`, the answer kept as partial.
   * stages/loop/answer-judge.ts builds one on modelJudge().
   */
  judge?: AnswerJudgeHook;
  maxJudgeRetries?: number;
  /**
   * Called when a plan step's text reply ends it, with the step's result: a result of no use is a failed attempt, and
   * the step starts again with the reason (`maxJudgeRetries` times), then fails (the replanner takes it from there).
   */
  stepJudge?: StepJudgeHook;
  /** Retries after a transient tool error, per step (default 2). */
  maxRetriesPerStep?: number;
  /** Consecutive failing turns after which nothing useful can follow (default 4). */
  stopAfterFailures?: number;
}

export function evaluate(options: EvaluateOptions = {}): Stage {
  const maxRetries = options.maxRetriesPerStep ?? 2;
  const stopAfter = options.stopAfterFailures ?? 4;
  const judgeHook = options.judge;
  const maxJudgeRetries = options.maxJudgeRetries ?? 1;
  return {
    name: 'evaluate',
    execute(state, ctx) {
      const slot = slotOf(state);
      const ended = options.stepJudge === undefined ? undefined : endedStepResult(state);
      if (ended === undefined) return decideTurn(state, ctx, slot);
      const decided = (decision: AnswerJudgement) => {
        applyStepJudgement(state, ctx, slot, ended, decision, maxJudgeRetries);
        return decideTurn(state, ctx, slot);
      };
      const judged = options.stepJudge!(state, ended);
      return isPromiseLike(judged) ? Promise.resolve(judged).then(decided) : decided(judged);
    },
  };

  function decideTurn(state: RunState, ctx: StageContext, slot: EvaluateSlot): Signal | void | Promise<Signal | void> {
    const step = slot.step;
    // judge writes the reason into the slot: no pair allocated per turn.
    const verdict = (slot.verdict = judge(state, slot, maxRetries, stopAfter));
    const reason = slot.reason;
    slot.iteration = state.iteration;
    slot.history.push({ iteration: state.iteration, verdict, reason });
    ctx.emit('verdict', () => ({ verdict, reason, step: step === null ? null : step + 1 }));
    if (verdict === 'stop') return abortRun(reason, 'evaluate_stop');
    // Rules first; the judge sees an answer think left pending (withJudgedAnswer).
    const pending = state.answerJudge;
    if (judgeHook === undefined || pending === undefined || !pending.pending) return;
    pending.pending = false;
    const judged = judgeHook(state);
    return isPromiseLike(judged)
      ? Promise.resolve(judged).then((decision) => afterJudge(state, ctx, pending, decision, maxJudgeRetries))
      : afterJudge(state, ctx, pending, judged, maxJudgeRetries);
  }
}

/** The evaluate slot of the step being worked on (a fresh one when the step changed). */
function slotOf(state: RunState): EvaluateSlot {
  const step = state.plan?.current ?? null;
  const previous = state.evaluate;
  const slot: EvaluateSlot =
    previous !== undefined && previous.step === step
      ? previous
      : {
          iteration: 0,
          verdict: 'continue',
          reason: '',
          step,
          retries: 0,
          failures: 0,
          overrunStep: null,
          history: previous?.history ?? [],
        };
  state.evaluate = slot;
  return slot;
}

/** Accepted: the run completes here. Rejected: the model is told why and answers again, then the run stops honestly. */
function afterJudge(
  state: RunState,
  ctx: StageContext,
  slot: AnswerJudgeSlot,
  decision: AnswerJudgement,
  maxRetries: number,
): Signal | void {
  const judged = recordJudgement(ctx, slot, decision);
  if (judged.accept) return breakLoop('the model gave its final answer and the judge accepted it', 'completed');
  if (slot.retries < maxRetries) {
    slot.retries++;
    state.nextTurn.notes.push(
      `Your answer was checked against the task and not accepted: ${judged.reason}. Answer again, using the tools if you need them.`,
    );
    return;
  }
  state.partial = true;
  return abortRun(`the answer did not pass the judge: ${judged.reason}`, 'judge_rejected');
}

/** A judge's decision, made plain, kept in the slot and reported. */
export function recordJudgement(ctx: StageContext, slot: AnswerJudgeSlot, decision: AnswerJudgement): AnswerJudgement {
  const judged = { accept: decision.accept === true, reason: String(decision.reason ?? '') };
  slot.decisions.push(judged);
  ctx.emit('answer_judged', { ...judged });
  return judged;
}

/**
 * Wraps think so that its final answer waits for evaluate's judge: the break becomes evaluate's to give. The pipelines
 * apply it when `evaluate({ judge })` is set.
 */
export function withJudgedAnswer(stage: Stage): Stage {
  const defer = (state: RunState, signal: Signal | void): Signal | void => {
    if (signal === undefined || signal.type !== 'break_loop' || signal.kind !== 'completed') return signal;
    (state.answerJudge ??= { pending: false, retries: 0, decisions: [] }).pending = true;
    return undefined;
  };
  return {
    name: stage.name,
    needs: stage.needs,
    execute(state, ctx) {
      const returned = stage.execute(state, ctx);
      return isPromiseLike(returned)
        ? Promise.resolve(returned).then((signal) => defer(state, signal))
        : defer(state, returned);
    },
  };
}

/** The verdict of this turn; its reason goes into `slot.reason`. */
function judge(state: RunState, slot: EvaluateSlot, maxRetries: number, stopAfter: number): Verdict {
  const { toolCalls, results } = state.turn;
  if (slot.rejection !== undefined) {
    const rejection = slot.rejection;
    delete slot.rejection;
    return reasoned(
      slot,
      state.plan?.steps[state.plan.current]?.status === 'in_progress' ? 'retry' : 'continue',
      rejection,
    );
  }
  if (toolCalls.length === 0) {
    slot.failures = 0;
    if (state.plan !== undefined && state.plan.steps[state.plan.current]?.status !== 'in_progress')
      return reasoned(slot, 'continue', `step ${state.plan.current + 1} ended`);
    return reasoned(
      slot,
      'continue',
      state.answer !== undefined ? 'the model gave its answer' : 'no tool call this turn',
    );
  }
  let failed: Array<{ call: ToolCall; outcome: ToolOutcome | undefined }> | undefined;
  for (let index = 0; index < toolCalls.length; index++) {
    const call = toolCalls[index]!;
    // act keeps results in call order, so the entry at the same index is almost always the one.
    const outcome =
      results[index]?.call.id === call.id ? results[index] : results.find((entry) => entry.call.id === call.id);
    if (!succeeded(outcome)) (failed ??= []).push({ call, outcome });
  }
  if (failed === undefined) {
    slot.failures = 0;
    const overrun = planOverrun(state, slot);
    if (overrun !== undefined) return reasoned(slot, 'replan', overrun);
    return reasoned(
      slot,
      'continue',
      toolCalls.length === 1 ? '1 tool call succeeded' : `${toolCalls.length} tool calls succeeded`,
    );
  }
  slot.failures++;
  const described = failed.map(({ call, outcome }) => `${call.name} ${problemOf(outcome)}`).join('; ');
  const transient = failed.every(
    ({ outcome }) => outcome !== undefined && !outcome.result.ok && outcome.result.error.retryable,
  );
  if (slot.failures >= stopAfter)
    return reasoned(
      slot,
      'stop',
      `tool calls failed in ${slot.failures} turns in a row (${described}): nothing useful can follow`,
    );
  if (transient && slot.retries < maxRetries) {
    slot.retries++;
    // The model decides the next move, so the retry is asked of it through the next turn's notes.
    state.nextTurn.notes.push(
      `The last tool call failed with a transient error (${described}); you may make the same call again.`,
    );
    return reasoned(slot, 'retry', `transient failure (${described}): retry ${slot.retries} of ${maxRetries}`);
  }
  if (state.plan !== undefined && (transient || slot.failures > maxRetries)) {
    return reasoned(slot, 'replan', `step ${state.plan.current + 1} keeps failing (${described})`);
  }
  return reasoned(slot, 'continue', `${described}: the model sees the error and can correct its call`);
}

function reasoned(slot: EvaluateSlot, verdict: Verdict, reason: string): Verdict {
  slot.reason = reason;
  return verdict;
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
  if (plan === undefined || slot.overrunStep === plan.current || state.iteration <= plan.steps.length * 2)
    return undefined;
  if (plan.steps[plan.current]?.status !== 'in_progress') return undefined;
  slot.overrunStep = plan.current;
  return `the run has used ${state.iteration} iterations, more than twice the plan's ${plan.steps.length} steps`;
}
