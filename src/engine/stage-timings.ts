// Per-stage call counts and time: one flat number array per run, turned into StageStats at the end. The layout (each
// zone's first slot, the stages' names) is worked out once per pipeline, when its first run prepares it.
import { zones, type Pipeline } from './pipeline.js';
import type { Stage, Zone } from './stage.js';

export interface StageStats {
  zone: Zone;
  name: string;
  calls: number;
  totalMs: number;
}

/** One zone as the stage loop runs it: its stages, and the slot of its first stage's [calls, ms] pair. */
export interface PreparedZone {
  readonly stages: readonly Stage[];
  readonly first: number;
}

/**
 * A pipeline prepared for running, made once per pipeline (an edited pipeline is a new one and is prepared anew):
 * nothing of the layout is looked up per stage or per run. The timings array holds [calls, ms] pairs in pipeline
 * order, then one slot for the clock at the last stage boundary (a double array element: no number boxed per read).
 */
export interface PreparedPipeline {
  readonly setup: PreparedZone;
  readonly iteration: PreparedZone;
  readonly finalize: PreparedZone;
  /** Index of the boundary clock slot, and the timings array's length less one. */
  readonly boundarySlot: number;
  readonly names: ReadonlyArray<{ zone: Zone; name: string }>;
  /** A run's timings at the start, a packed double array: each run copies it (one copy, no kind change later). */
  readonly blankTimings: readonly number[];
}

const prepared = new WeakMap<Pipeline, PreparedPipeline>();

export function preparedPipeline(pipeline: Pipeline): PreparedPipeline {
  let ready = prepared.get(pipeline);
  if (ready === undefined) prepared.set(pipeline, (ready = prepare(pipeline)));
  return ready;
}

function prepare(pipeline: Pipeline): PreparedPipeline {
  const names = zones.flatMap((zone) => pipeline[zone].map((stage) => ({ zone, name: stage.name })));
  const setup = { stages: pipeline.setup, first: 0 };
  const iteration = { stages: pipeline.iteration, first: 2 * pipeline.setup.length };
  const finalize = { stages: pipeline.finalize, first: 2 * (pipeline.setup.length + pipeline.iteration.length) };
  // Pushed as doubles, then zeroed: the array's elements stay unboxed doubles in every run's copy.
  const blankTimings: number[] = [];
  for (let slot = 0; slot <= 2 * names.length; slot++) blankTimings.push(0.5);
  for (let slot = 0; slot < blankTimings.length; slot++) blankTimings[slot] = 0;
  return { setup, iteration, finalize, boundarySlot: 2 * names.length, names, blankTimings };
}

/** A run's timings: every pair at zero (a copy of the prepared blank array). */
export function newTimings(ready: PreparedPipeline): number[] {
  return ready.blankTimings.slice();
}

export function stageStats(ready: PreparedPipeline, timings: readonly number[]): StageStats[] {
  const stats = new Array<StageStats>(ready.names.length);
  for (let index = 0; index < stats.length; index++) {
    const { zone, name } = ready.names[index]!;
    stats[index] = { zone, name, calls: timings[2 * index]!, totalMs: timings[2 * index + 1]! };
  }
  return stats;
}
