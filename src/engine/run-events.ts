// Events a run reports to deps.onEvent; an observer's bug never changes the run.
import type { RunEvent, Zone } from './stage.js';

export interface EventSource {
  runId: string;
  zone: Zone;
  stage: string;
  iteration: number;
  at: number;
}

export function deliver(onEvent: (event: RunEvent) => void, type: string, source: EventSource, data: Record<string, unknown>): void {
  const runLevel = type.startsWith('run_');
  const event: RunEvent = {
    runId: source.runId,
    type,
    zone: runLevel ? null : source.zone,
    stage: runLevel ? null : source.stage,
    iteration: source.iteration,
    at: source.at,
    data,
  };
  try {
    onEvent(event);
  } catch {
    // An observer's bug must not change the run's outcome.
  }
}
