// Links a guard stage's run (the tracer's stage wrapper) to the events it emits (the deps' onEvent), so a guard gets
// its span only when it acted, with the events it recorded on that span. One watch per instrumented deps.
import type { Attributes, Context } from '@opentelemetry/api';
import { isGuardAction } from './quiet-guards.js';

export interface WatchedSpanEvent {
  name: string;
  attributes: Attributes;
  at: number;
}

export interface WatchedGuard {
  acted: boolean;
  /** Span events the guard recorded while no span of its own existed yet. */
  readonly events: WatchedSpanEvent[];
}

const keyOf = (runId: string, stage: string) => `${runId}\u0000${stage}`;

export class GuardWatch {
  private readonly open = new Map<string, WatchedGuard>();
  /** Each traced run's root context, by run id: plan step spans hang there, across iterations. */
  readonly roots = new Map<string, Context>();

  /** A guard stage starts: its events are collected until `end`. */
  begin(runId: string, stage: string): WatchedGuard {
    const watched: WatchedGuard = { acted: false, events: [] };
    this.open.set(keyOf(runId, stage), watched);
    return watched;
  }

  end(runId: string, stage: string): void {
    this.open.delete(keyOf(runId, stage));
  }

  /**
   * Notes an event of a watched guard: it acted unless the event only reports, and `spanEvents` wait for its span.
   * False when no guard with this name is running in this run (the caller records on the active span instead).
   */
  note(event: { runId: string; stage: string | null; type: string }, spanEvents: readonly WatchedSpanEvent[]): boolean {
    if (event.stage === null || this.open.size === 0) return false;
    const watched = this.open.get(keyOf(event.runId, event.stage));
    if (watched === undefined) return false;
    if (isGuardAction(event.type)) watched.acted = true;
    watched.events.push(...spanEvents);
    return true;
  }
}
