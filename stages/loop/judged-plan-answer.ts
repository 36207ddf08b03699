// withJudgedPlanAnswer(stage, compose, { judge }) (iteration): wraps the stage that ends a plan's loop (replan). When it
// ends the loop as completed, the answer is composed there (compose: the pipeline's summarize stage) and evaluate's
// judge checks it against the goal. Reads and writes answer, partial and the answerJudge slot; returns the inner
// signal on an accepted answer, abortRun 'judge_rejected' (the answer kept as partial) once the retries are spent.
import { abortRun } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import { recordJudgement, type EvaluateOptions } from './evaluate.js';
import type {} from './summarize.js';

/** The stage as it is without a judge; with one, a completed plan is done only once its answer passes the judge. */
export function withJudgedPlanAnswer(stage: Stage, compose: Stage, options: EvaluateOptions | undefined): Stage {
  const judge = options?.judge;
  if (judge === undefined) return stage;
  const maxRetries = options?.maxJudgeRetries ?? 1;
  return {
    name: stage.name,
    needs: stage.needs,
    async execute(state, ctx) {
      const signal = await stage.execute(state, ctx);
      if (signal?.type !== 'break_loop' || signal.kind !== 'completed') return signal;
      const slot = (state.answerJudge ??= { pending: false, retries: 0, decisions: [] });
      // A rejected answer is composed again with the judge's reason in the brief (summarize reads the last decision).
      for (;;) {
        // summarize composes unless it already has (its slot set): each attempt is a new composition.
        delete state.summarize;
        await compose.execute(state, ctx);
        const judged = recordJudgement(ctx, slot, await judge(state));
        if (judged.accept) return signal;
        if (slot.retries >= maxRetries) {
          state.partial = true;
          return abortRun(`the answer did not pass the judge: ${judged.reason}`, 'judge_rejected');
        }
        slot.retries++;
      }
    },
  };
}
