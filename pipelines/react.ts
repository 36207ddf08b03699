// ReAct: setup [history?, context] · iteration [think, act, handoff?, observe, evaluate] · finalize [summarize, memory?] (history and memory with a session), with the default guards.
import { definePipeline, type Pipeline } from '../src/engine/pipeline.js';
import type { GuardSettings } from '../src/engine/guard-settings.js';
import { applyGuards } from './guards.js';
import { act, context, handoffStage, history, memory, evaluate, observe, summarize, think } from '../stages/index.js';
import { withOutput } from '../stages/loop/final-output.js';
import { withJudgedAnswer } from '../stages/loop/evaluate.js';
import type { Stage } from '../src/engine/stage.js';
import type { z } from 'zod';
import type {
  ActOptions,
  ContextOptions,
  MemoryOptions,
  EvaluateOptions,
  ObserveOptions,
  SummarizeOptions,
  ThinkOptions,
} from '../stages/index.js';

export interface ReactPipelineOptions {
  context?: ContextOptions;
  think?: ThinkOptions;
  act?: ActOptions;
  observe?: ObserveOptions;
  evaluate?: EvaluateOptions;
  summarize?: SummarizeOptions;
  /** Iteration cap (default 10). */
  maxIterations?: number;
  /** The final answer also as JSON matching this schema (outputOf(result, schema)); one that cannot match stops the run with invalid_output. */
  outputSchema?: z.ZodType;
  /** A run with a session (input.session): history first in setup, memory last in finalize. */
  session?: { memory?: MemoryOptions };
  /** The guards (docs/guards.md): the defaults plus these settings (0 turns one off); false for none at all. */
  guards?: GuardSettings | false;
  /** Its tools include handoffs (`handoff()`): the handoff stage after act ends the loop with the target's answer. */
  handoffs?: boolean;
}

export function reactPipeline(options: ReactPipelineOptions = {}): Pipeline {
  const maxIterations = options.maxIterations ?? 10;
  const pipeline = definePipeline({
    name: 'react',
    setup: [...(options.session ? [history()] : []), context(options.context)],
    iteration: [
      judged(withOutput(think(options.think), options.outputSchema), options.evaluate),
      act(options.act),
      ...(options.handoffs === true ? [handoffStage()] : []),
      observe(options.observe),
      evaluate(options.evaluate),
    ],
    finalize: [
      summarize({ maxIterations, ...options.summarize }),
      ...(options.session ? [memory(options.session.memory)] : []),
    ],
    maxIterations,
  });
  return options.guards === false ? pipeline : applyGuards(pipeline, options.guards ?? {}, { defaults: true });
}

/** With a judge hook, the answer waits for evaluate's judge. */
function judged(stage: Stage, options: EvaluateOptions | undefined): Stage {
  return options?.judge === undefined ? stage : withJudgedAnswer(stage);
}
