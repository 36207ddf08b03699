// What a caller may pass to runPipeline, checked once before the run starts.
import { isPipeline, type Pipeline } from './pipeline.js';
import type { RunSeam, RunStart } from './run-seam.js';
import type { Deps } from './stage.js';
import type { RunInput } from './state.js';

export interface RunOptions {
  deps?: Partial<Deps>;
  signal?: AbortSignal;
  /** Time limit for the whole finalize zone, in ms (default 10,000). */
  finalizeTimeoutMs?: number;
  /** After a cancel or deadline, how long a stage may take to notice before the run stops waiting for it (default 500 ms). */
  abandonAfterMs?: number;
  /** Durability (journal, checkpoints): given by src/durable. */
  seam?: RunSeam;
  /** Continue a recorded run from a checkpoint instead of starting afresh. */
  start?: RunStart;
}

export interface CheckedOptions {
  finalizeTimeoutMs: number;
  abandonAfterMs: number;
}

/** Throws a TypeError naming the wrong argument: the only way runPipeline rejects. */
export function checkArguments(pipeline: Pipeline, input: RunInput, options: RunOptions): CheckedOptions {
  if (!isPipeline(pipeline))
    throw new TypeError('runPipeline: the first argument must be a pipeline made by definePipeline()');
  if (typeof input !== 'object' || input === null || typeof input.task !== 'string') {
    throw new TypeError('runPipeline: input must be an object like { task: "..." }');
  }
  const finalizeTimeoutMs = options.finalizeTimeoutMs ?? 10_000;
  if (!(finalizeTimeoutMs > 0))
    throw new TypeError('runPipeline: finalizeTimeoutMs must be a positive number of milliseconds');
  const abandonAfterMs = options.abandonAfterMs ?? 500;
  if (!(abandonAfterMs >= 0))
    throw new TypeError('runPipeline: abandonAfterMs must be a number of milliseconds, 0 or more');
  return { finalizeTimeoutMs, abandonAfterMs };
}
