// The runs a shown run's tool calls started (agents, handoffs), printed under the call that started them: each
// child's own timeline, indented, with how it ended; its children under it in turn.
import { shortText } from '../../src/common/short-text.js';
import type { LoadedRun } from '../../src/durable/inspect.js';
import type { RunTree } from '../../src/durable/run-tree.js';
import { timelineOf, type TimelineItem } from '../../src/durable/timeline.js';
import { withoutQuietGuards } from '../../src/tracing/quiet-guards.js';

/** One line per timeline item (`line` formats it), each followed by the children of its calls, indented. */
export function timelineLines(
  loaded: LoadedRun | RunTree,
  line: (item: TimelineItem) => string | readonly string[],
  indent = '',
): string[] {
  // Guards that did nothing get no line (the quiet rule); --json keeps every entry.
  const timeline = withoutQuietGuards(timelineOf(loaded));
  const children = 'children' in loaded ? loaded.children : new Map<string, RunTree>();
  // A child hangs under its call's tool batch, or under the model reply that asked for it when the batch never ended.
  const batched = new Set(timeline.flatMap((item) => (item.kind === 'tool' ? (item.calls ?? []) : [])));
  const lines: string[] = [];
  for (const item of timeline) {
    const shown = line(item);
    for (const text of typeof shown === 'string' ? [shown] : shown) lines.push(`${indent}${text}`);
    for (const callId of item.calls ?? []) {
      const child = children.get(callId);
      if (child === undefined || (item.kind === 'model' && batched.has(callId))) continue;
      lines.push(...childLines(child, line, `${indent}      `));
    }
  }
  return lines;
}

function childLines(
  child: RunTree,
  line: (item: TimelineItem) => string | readonly string[],
  indent: string,
): string[] {
  const { run } = child;
  const agent = (run.options as { agent?: unknown }).agent;
  const head = `${indent.slice(2)}↳ ${typeof agent === 'string' ? `agent ${agent} · ` : ''}run ${run.runId} · ${run.status}`;
  const outcome = run.outcome;
  const end =
    outcome === null
      ? `${indent}not finished: ${run.head} journal entries so far`
      : `${indent}answer: ${shortText(outcome.answer ?? '(none)', 200)}`;
  return [head, ...timelineLines(child, line, indent), end];
}

/** The children as `stageloop show --json` gives them: each run with its timeline and its own children. */
export function childrenJson(loaded: LoadedRun | RunTree): object[] {
  if (!('children' in loaded)) return [];
  return [...loaded.children].map(([callId, child]) => {
    const { checkpoints: _checkpoints, journal: _journal, children: _children, ...rest } = child;
    return { callId, ...rest.run, timeline: timelineOf(child), children: childrenJson(child) };
  });
}
