// Plan-Execute-Replan: setup [history?, context, plan] · iteration [think, act, observe, evaluate, replan] · finalize [summarize, memory?] (history and memory with a session), with the default guards. Think to evaluate run for each running plan step (perStep), side by side up to maxParallelSteps.
import { definePipeline, type Pipeline } from '../src/engine/pipeline.js';
import type { GuardSettings } from '../src/engine/guard-settings.js';
import { applyGuards } from './guards.js';
import { act, context, history, memory, evaluate, observe, plan, replan, summarize, think } from '../stages/index.js';
import type { z } from 'zod';
import { withOutput } from '../stages/loop/final-output.js';
import { perStep } from '../stages/plan/plan-branch.js';
import { withJudgedPlanAnswer } from '../stages/loop/judged-plan-answer.js';
import type {
  ActOptions,
  ContextOptions,
  MemoryOptions,
  EvaluateOptions,
  ObserveOptions,
  PlanOptions,
  ReplanOptions,
  SummarizeOptions,
  ThinkOptions,
} from '../stages/index.js';

export interface PlanExecuteReplanPipelineOptions {
  context?: ContextOptions;
  plan?: PlanOptions;
  think?: ThinkOptions;
  act?: ActOptions;
  observe?: ObserveOptions;
  evaluate?: EvaluateOptions;
  replan?: ReplanOptions;
  summarize?: SummarizeOptions;
  /** Plan steps that may run at once (default 3); 1 runs them one after another. */
  maxParallelSteps?: number;
  /** Offer the model the `replan` tool to ask for a new plan (default true). */
  replanTool?: boolean;
  /** Iteration cap (default 24). */
  maxIterations?: number;
  /** The final answer also as JSON matching this schema (outputOf(result, schema)); one that cannot match stops the run with invalid_output. */
  outputSchema?: z.ZodType;
  /** A run with a session (input.session): history first in setup, memory last in finalize. */
  session?: { memory?: MemoryOptions };
  /** The guards (docs/guards.md): the defaults plus these settings (0 turns one off); false for none at all. */
  guards?: GuardSettings | false;
}

export function planExecuteReplanPipeline(options: PlanExecuteReplanPipelineOptions = {}): Pipeline {
  const maxIterations = options.maxIterations ?? 24;
  const planOptions = {
    ...options.plan,
    ...(options.maxParallelSteps === undefined ? {} : { maxParallelSteps: options.maxParallelSteps }),
  };
  const step = { replanTool: options.replanTool ?? true };
  const summarizeStage = summarize({ maxIterations, ...options.summarize });
  const ending = withOutput(replan({ maxSteps: options.plan?.maxSteps, ...options.replan }), options.outputSchema);
  const pipeline = definePipeline({
    name: 'plan-execute-replan',
    setup: [...(options.session ? [history()] : []), context(options.context), plan(planOptions)],
    iteration: [
      perStep(think(options.think), step),
      perStep(act(options.act), step),
      perStep(observe(options.observe), step),
      perStep(evaluate(options.evaluate), step),
      // With a judge the goal is met once every step is done and the composed answer passes it.
      withJudgedPlanAnswer(ending, summarizeStage, options.evaluate),
    ],
    finalize: [summarizeStage, ...(options.session ? [memory(options.session.memory)] : [])],
    maxIterations,
  });
  return options.guards === false ? pipeline : applyGuards(pipeline, options.guards ?? {}, { defaults: true });
}
