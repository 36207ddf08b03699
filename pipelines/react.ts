// ReAct: setup [context] · iteration [think, act, observe, evaluate] · finalize [summarize].
import { definePipeline, type Pipeline } from '../src/engine/pipeline.js';
import { act, context, evaluate, observe, summarize, think } from '../stages/index.js';
import { withOutput } from '../stages/final-output.js';
import type { z } from 'zod';
import type { ActOptions, ContextOptions, EvaluateOptions, ObserveOptions, SummarizeOptions, ThinkOptions } from '../stages/index.js';

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
}

export function reactPipeline(options: ReactPipelineOptions = {}): Pipeline {
  const maxIterations = options.maxIterations ?? 10;
  return definePipeline({
    name: 'react',
    setup: [context(options.context)],
    iteration: [withOutput(think(options.think), options.outputSchema), act(options.act), observe(options.observe), evaluate(options.evaluate)],
    finalize: [summarize({ maxIterations, ...options.summarize })],
    maxIterations,
  });
}
