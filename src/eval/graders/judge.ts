// The model-judge grader: a rubric scored by a model through modelJudge (the one judge helper, cached).
import type { ModelJudge } from '../../model/judge.js';
import { modelJudge } from '../../model/judge.js';
import type { ChatModel } from '../../model/types.js';
import { preview, type Grader } from './types.js';

export interface JudgeGraderOptions {
  rubric: string;
  /** The judging model, or a judge made by modelJudge() (shares its cache). */
  model?: ChatModel;
  judge?: ModelJudge;
  /** A score at or above it passes (default 0.7). */
  threshold?: number;
  timeoutMs?: number;
}

/** The answer is judged against the rubric, with the case's expected value as the reference; an unreachable judge scores 0. */
export function judge(options: JudgeGraderOptions): Grader {
  const ask =
    options.judge ??
    (options.model &&
      modelJudge({
        model: options.model,
        rubric: options.rubric,
        purpose: 'eval_judge',
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      }));
  if (ask === undefined) throw new TypeError('judge grader: give a model (or a judge made by modelJudge)');
  return {
    name: 'judge',
    threshold: options.threshold ?? 0.7,
    async grade(subject, context) {
      const reference =
        subject.case.expected === undefined
          ? undefined
          : typeof subject.case.expected === 'string'
            ? subject.case.expected
            : JSON.stringify(subject.case.expected);
      const outcome = await ask({
        text: `Task: ${subject.case.task}\nAnswer: ${subject.answer}`,
        ...(reference !== undefined && { reference }),
        ...(context.signal && { signal: context.signal }),
      });
      if (!outcome.ok) return { score: 0, reason: `no verdict: ${outcome.problem}` };
      return {
        score: outcome.verdict.score,
        reason: `judge: ${preview(outcome.verdict.reason, 160)}${outcome.verdict.cached ? ' (cached)' : ''}`,
      };
    },
  };
}
