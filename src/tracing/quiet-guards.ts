// The quiet rule: a guard stage that did nothing gets no span, no progress line and no timeline row of its own; one
// that acted (changed the state, decided, refused, redacted, paused or stopped the run) shows as itself. Its time
// stays in the totals around it (the iteration span, the run's duration). One rule for tracing, progress, `show`,
// `show --html` and the console.
import type { TimelineItem } from '../durable/timeline.js';

/**
 * The built-in guards (stages/guards, stages/approval, the taint policy), which declare `quiet: true` on their Stage:
 * named here too for a process that shows a recorded run without loading those stages (a test keeps both equal).
 */
export const builtInGuardNames: ReadonlySet<string> = new Set([
  'limits',
  'budget',
  'budget-start',
  'session-budget',
  'prune',
  'loop-guard',
  'loop-guard-history',
  'injection-guard',
  'injection-guard-task',
  'injection-guard-tools',
  'injection-guard-history',
  'taint',
  'taint-gate',
  'approval',
]);

/** Names of other stages that declared `quiet: true` (a user's own guard), as this process met them. */
const declaredGuardNames = new Set<string>();

/** Notes the stages that declare `quiet: true`, so their events and timeline rows follow the quiet rule too. */
export function noteQuietStages(stages: Iterable<{ readonly name: string; readonly quiet?: boolean }>): void {
  for (const stage of stages) if (stage.quiet === true) declaredGuardNames.add(stage.name);
}

/** Events a guard emits without deciding anything: they do not make it act (the `limits` line is a report). */
const reportOnlyEvents = new Set(['stage_started', 'stage_finished', 'limits']);

/** True for a guard stage (built in, or declared `quiet`); `budget#s2` (the budget of plan step s2) is one too. */
export function isGuardStage(stage: string | null | undefined): boolean {
  if (stage === null || stage === undefined) return false;
  const mark = stage.indexOf('#');
  const name = mark === -1 ? stage : stage.slice(0, mark);
  return builtInGuardNames.has(name) || declaredGuardNames.has(name);
}

/** True when an event of this type, emitted by a guard stage, means the guard acted. */
export function isGuardAction(eventType: string): boolean {
  return !reportOnlyEvents.has(eventType);
}

/** Whether a stage gets its own span, line or row: any stage that is not a guard, and a guard that acted. */
export function stageIsShown(stage: string | null | undefined, acted: boolean): boolean {
  return acted || !isGuardStage(stage);
}

/**
 * A recorded run's timeline without the rows of guards that did nothing: a guard row stays when it steered (its
 * summary is not "continue"), when a call or a person's decision was made inside it, or after a wait for a person.
 */
export function withoutQuietGuards(items: readonly TimelineItem[]): TimelineItem[] {
  const shown: TimelineItem[] = [];
  let workInside = false;
  for (const item of items) {
    if (item.kind !== 'stage') {
      workInside = true;
      shown.push(item);
      continue;
    }
    const acted = workInside || item.summary !== 'continue' || item.waitedMs !== undefined;
    workInside = false;
    if (stageIsShown(item.stage, acted)) shown.push(item);
  }
  return shown;
}
