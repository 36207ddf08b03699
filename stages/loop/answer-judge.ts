// answerJudge: evaluate's judge hook built on modelJudge() (src/model/judge.ts): a model scores the final answer against the task.
import { addUsage, type RunState } from '../../src/engine/state.js';
import { modelJudge } from '../../src/model/judge.js';
import type { ChatModel } from '../../src/model/types.js';
import type { AnswerJudgeHook } from './evaluate.js';

export interface AnswerJudgeOptions {
  /** The judging model (it may be the run's own). */
  model: ChatModel;
  /** What a good answer is, in plain words; default: it answers the task fully and does not dodge it. */
  rubric?: string;
  /** Scores below this reject the answer (default 0.5). */
  minScore?: number;
  /** Time for one judgement (default 10 s). */
  timeoutMs?: number;
}

const defaultRubric =
  'Does the text answer the task given as the reference fully and directly, without dodging it or only restating it?';

/** A judge whose failure (unreachable, unreadable reply) accepts the answer and says why: a broken judge never ends a run. */
export function answerJudge(options: AnswerJudgeOptions): AnswerJudgeHook {
  const minScore = options.minScore ?? 0.5;
  const judge = modelJudge({
    model: options.model,
    rubric: options.rubric ?? defaultRubric,
    purpose: 'judge',
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  return async (state: RunState) => {
    const outcome = await judge({ text: state.answer ?? '', reference: state.input.task });
    // The judge's tokens are the run's: they count in usage and budgets.
    addUsage(state.usage, outcome.ok ? outcome.verdict.usage : outcome.usage);
    if (!outcome.ok) return { accept: true, reason: `not judged: ${outcome.problem}` };
    const { score, reason } = outcome.verdict;
    return { accept: score >= minScore, reason: `score ${score}: ${reason}` };
  };
}
