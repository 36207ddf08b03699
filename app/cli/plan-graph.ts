// The plan of a recorded run as `stageloop show` draws it: its steps in waves (steps of one wave need nothing from
// each other and may run side by side), each with its status, dependencies and how long its calls took. A step with a
// sub-plan has its sub-steps under it, indented, in waves of their own.
import type { JournalEntry } from '../../src/durable/journal-entries.js';
import type { PlanStepView, PlanView } from './output.js';

const marks: Record<string, string> = {
  pending: '[ ]',
  in_progress: '[>]',
  completed: '[x]',
  failed: '[!]',
  blocked: '[-]',
  replaced: '[/]',
};

export function planGraphLines(plan: PlanView, journal: readonly JournalEntry[]): string[] {
  const durations = stepDurations(journal);
  const lines = [`plan${plan.goal ? ` — goal: ${plan.goal}` : ''}`];
  if (plan.reasoning) lines.push(`  reasoning: ${plan.reasoning}`);
  lines.push(...levelLines(plan.steps, undefined, '  ', durations));
  return lines;
}

/** One plan level (the run's own steps, or one step's sub-steps) in waves, each sub-plan under its step. */
function levelLines(
  all: readonly PlanStepView[],
  parent: string | undefined,
  indent: string,
  durations: ReadonlyMap<string, number>,
): string[] {
  const lines: string[] = [];
  waves(all.filter((step) => step.parent === parent)).forEach((wave, index) => {
    lines.push(`${indent}wave ${index + 1}${wave.length > 1 ? ' (side by side)' : ''}:`);
    for (const step of wave) {
      const after = step.dependsOn.length > 0 ? ` ← ${step.dependsOn.join(', ')}` : '';
      const took = durations.get(step.id);
      const tool = step.tool ? ` [${step.tool}]` : '';
      const sub = all.some((child) => child.parent === step.id);
      lines.push(
        `${indent}  ${marks[step.status] ?? `[${step.status}]`} ${step.id}${after}${tool}${sub ? ' · sub-plan' : ''}${took === undefined ? '' : ` · ${took} ms`}`,
      );
      lines.push(`${indent}      ${step.description}`);
      if (sub) lines.push(...levelLines(all, step.id, `${indent}      `, durations));
    }
  });
  return lines;
}

/** Steps by depth: a step's wave is one after the latest wave among the steps it depends on. */
function waves(steps: readonly PlanStepView[]): PlanStepView[][] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const depth = new Map<string, number>();
  const depthOf = (step: PlanStepView, seen: Set<string>): number => {
    const known = depth.get(step.id);
    if (known !== undefined) return known;
    if (seen.has(step.id)) return 0;
    seen.add(step.id);
    const needs = step.dependsOn
      .map((id) => byId.get(id))
      .filter((found): found is PlanStepView => found !== undefined);
    const value = needs.length === 0 ? 0 : Math.max(...needs.map((need) => depthOf(need, seen))) + 1;
    depth.set(step.id, value);
    return value;
  };
  const grouped: PlanStepView[][] = [];
  for (const step of steps) (grouped[depthOf(step, new Set())] ??= []).push(step);
  return grouped.filter((wave) => wave !== undefined);
}

/** For steps that ran side by side (their calls are journaled under "stage#id"): first call start to last call end. */
function stepDurations(journal: readonly JournalEntry[]): Map<string, number> {
  const spans = new Map<string, { start: number; end: number }>();
  for (const entry of journal) {
    const mark = entry.stage?.indexOf('#') ?? -1;
    if (mark === -1 || (entry.kind !== 'model' && entry.kind !== 'tool')) continue;
    const id = entry.stage!.slice(mark + 1);
    const took =
      entry.kind === 'tool'
        ? Math.max(0, ...entry.data.results.map((result) => result.durationMs))
        : (entry.data.response?.latencyMs ?? 0);
    const span = spans.get(id);
    const start = entry.at - took;
    if (span === undefined) spans.set(id, { start, end: entry.at });
    else spans.set(id, { start: Math.min(span.start, start), end: Math.max(span.end, entry.at) });
  }
  return new Map([...spans].map(([id, span]) => [id, Math.round(span.end - span.start)]));
}
