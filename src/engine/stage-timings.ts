// Per-stage call counts and time: one flat number array per run, turned into StageStats at the end.
import { zones, type Pipeline } from './pipeline.js';
import type { Zone } from './stage.js';

export interface StageStats {
  zone: Zone;
  name: string;
  calls: number;
  totalMs: number;
}

/** Slot of a zone's first stage: the array holds [calls, ms] pairs in pipeline order. */
export function firstSlot(pipeline: Pipeline, zone: Zone): number {
  if (zone === 'setup') return 0;
  if (zone === 'iteration') return 2 * pipeline.setup.length;
  return 2 * (pipeline.setup.length + pipeline.iteration.length);
}

export function newTimings(pipeline: Pipeline): number[] {
  return new Array<number>(2 * (pipeline.setup.length + pipeline.iteration.length + pipeline.finalize.length)).fill(0);
}

export function stageStats(pipeline: Pipeline, timings: readonly number[]): StageStats[] {
  const stats: StageStats[] = [];
  for (let zoneIndex = 0; zoneIndex < zones.length; zoneIndex++) {
    const zone = zones[zoneIndex]!;
    const stages = pipeline[zone];
    for (let index = 0; index < stages.length; index++) {
      const slot = 2 * stats.length;
      stats.push({ zone, name: stages[index]!.name, calls: timings[slot]!, totalMs: timings[slot + 1]! });
    }
  }
  return stats;
}
