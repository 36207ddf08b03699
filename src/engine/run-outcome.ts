// How a run ends: the first stage to steer wins, and the runner's own endings (cap, error, abort) are final.
import type { Signal } from './signal.js';
import type { RunOutcome, RunStatus } from './state.js';

export interface Steer {
  type: Signal['type'];
  kind: string;
  reason: string;
  stage: string;
}

export class OutcomeTracker {
  steer: Steer | null = null;
  breakRequested = false;
  ended: RunOutcome | null = null;

  /** Records a stage's signal; true when the run must stop at once (an abort). */
  steered(signal: Signal, stage: string): boolean {
    this.steer ??= { type: signal.type, kind: signal.kind, reason: signal.reason, stage };
    if (signal.type === 'abort_run') {
      const first = this.steer;
      this.end(first.type === 'abort_run' ? 'stopped' : 'completed', first.kind, first.stage, first.reason);
      return true;
    }
    this.breakRequested = true;
    return false;
  }

  /** The first ending wins; later ones change nothing. */
  end(status: RunStatus, kind: string, stage: string | null, message: string): void {
    this.ended ??= { status, kind, stage, message };
  }

  outcome(): RunOutcome {
    if (this.ended) return { ...this.ended };
    const steer = this.steer;
    if (steer) return { status: 'completed', kind: steer.kind, stage: steer.stage, message: steer.reason };
    return { status: 'completed', kind: 'completed', stage: null, message: 'the run finished' };
  }
}
