// Events a run reports to deps.onEvent, numbered 1, 2, 3... per run; an observer's bug never changes the run.
import { currentBranch } from './run-scope.js';
import type { RunEvent, RunEventType, Zone } from './stage.js';

export interface EventSource {
  runId: string;
  seq: number;
  zone: Zone;
  stage: string;
  iteration: number;
  at: number;
}

export function deliver(
  onEvent: (event: RunEvent) => void,
  type: RunEventType,
  source: EventSource,
  data: object,
): void {
  const runLevel = type.startsWith('run_');
  // The one place an event is built from a type and data that ctx.emit has already checked against RunEvents.
  const event = {
    runId: source.runId,
    seq: source.seq,
    type,
    zone: runLevel ? null : source.zone,
    stage: runLevel ? null : source.stage,
    iteration: source.iteration,
    at: source.at,
    data,
  } as RunEvent;
  // Work for one plan step (steps may run side by side) says which step it is.
  const branch = runLevel ? undefined : currentBranch();
  if (branch !== undefined) (event as { step?: string }).step = branch.step;
  try {
    onEvent(event);
  } catch {
    // An observer's bug must not change the run's outcome.
  }
}
