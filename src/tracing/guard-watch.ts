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

export class GuardWatch {
  /** The guards running now, by run id and stage name (a Map a run, kept until the run ends: no key strings made). */
  private readonly open = new Map<string, Map<string, WatchedGuard>>();
  /** Each traced run's root context, by run id: plan step spans hang there, across iterations. */
  readonly roots = new Map<string, Context>();

  /** A guard stage starts: its events are collected until `end`. */
  begin(runId: string, stage: string): WatchedGuard {
    const watched: WatchedGuard = { acted: false, events: [] };
    let running = this.open.get(runId);
    if (running === undefined) this.open.set(runId, (running = new Map()));
    running.set(stage, watched);
    return watched;
  }

  end(runId: string, stage: string): void {
    this.open.get(runId)?.delete(stage);
  }

  /** The run ended: forget it. */
  forget(runId: string): void {
    this.roots.delete(runId);
    this.open.delete(runId);
  }

  /**
   * Notes an event of a watched guard: it acted unless the event only reports, and `spanEvents` wait for its span.
   * False when no guard with this name is running in this run (the caller records on the active span instead).
   */
  note(event: { runId: string; stage: string | null; type: string }, spanEvents: readonly WatchedSpanEvent[]): boolean {
    if (event.stage === null) return false;
    const watched = this.open.get(event.runId)?.get(event.stage);
    if (watched === undefined) return false;
    if (isGuardAction(event.type)) watched.acted = true;
    watched.events.push(...spanEvents);
    return true;
  }
}
