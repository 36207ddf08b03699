// `stageloop show RUN [--json]`: a recorded run's timeline: stages, model and tool calls, signals, how it ended.
import type { LoadedRun } from '../../src/durable/inspect.js';
import { shortText } from '../../src/common/short-text.js';
import type { RunTree } from '../../src/durable/run-tree.js';
import { timelineOf, type TimelineItem } from '../../src/durable/timeline.js';
import { childrenJson, timelineLines } from './show-children.js';
import { planOfState } from './output.js';
import { workspaceLines } from './show-workspace.js';
import { planGraphLines } from './plan-graph.js';
import { parseFlags } from './args.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { CliStreams, CommandModule } from './command.js';
import { openRunStore } from '../store.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { shownSlots } from '../shown-slots.js';
import { invokedName } from './command-name.js';

export const showUsage =
  "Usage: stageloop show RUN [--json | --html] [--store PATH]\nThe run's timeline: each stage with its zone, iteration, duration and outcome, every model and tool call, the stop reason and the answer; the runs of agents its tool calls started are shown under those calls, indented.\n--html writes one self-contained page with the timeline as a waterfall: stageloop show RUN --html > run.html";

export function parseShowFlags(
  argv: readonly string[],
): { runId: string; json: boolean; html: boolean; store?: string } | 'help' {
  const parsed = parseFlags('show', argv, {
    json: { type: 'boolean' },
    html: { type: 'boolean' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (parsed.values.help) return 'help';
  const [runId, extra] = parsed.positionals;
  if (runId === undefined)
    throw new StageloopError('usage', 'stageloop show needs a run id: list them with "stageloop runs"');
  if (extra !== undefined) throw new StageloopError('usage', `stageloop show takes one run id, got also "${extra}"`);
  if (parsed.values.json && parsed.values.html)
    throw new StageloopError('usage', 'stageloop show takes --json or --html, not both');
  return {
    runId,
    json: parsed.values.json ?? false,
    html: parsed.values.html ?? false,
    ...(parsed.values.store !== undefined && { store: parsed.values.store }),
  };
}

export const show: CommandModule = {
  usage: () => showUsage,
  async run(argv, io) {
    const flags = parseShowFlags(argv);
    if (flags === 'help') return 'help';
    const { store } = await openRunStore(flags.store, io.env);
    try {
      const { loadRunTree } = await import('../../src/durable/run-tree.js');
      return await showCommand(await loadRunTree(store, flags.runId), flags, io);
    } finally {
      await store.close();
    }
  },
};

/** "[b] " for a call made for plan step b while steps ran side by side. */
function stepOf(item: TimelineItem): string {
  const mark = item.stage?.indexOf('#') ?? -1;
  return mark === -1 ? '' : `[${item.stage!.slice(mark + 1)}] `;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** An item's line, after the person's wait that came before it when there was one. */
function itemLines(item: TimelineItem): string[] {
  const lines =
    item.waitedMs === undefined
      ? []
      : [`    waiting for a person · ${seconds(item.waitedMs)} (not counted as stage time)`];
  if (item.kind === 'stage')
    lines.push(`${where(item)} ${item.stage ?? '—'} (${item.zone}, ${item.durationMs} ms): ${item.summary}`);
  else
    lines.push(
      `    ${stepOf(item)}${item.kind === 'model' ? 'model' : item.kind === 'decision' ? 'decision' : 'tools'} · ${item.summary}`,
    );
  return lines;
}

function where(item: TimelineItem): string {
  if (item.zone === 'iteration') return `[${item.iteration}]`;
  return item.zone === 'setup' ? '[setup]' : '[finalize]';
}

/** `loaded` with its children (loadRunTree) shows each agent run under the tool call that started it. */
export async function showCommand(
  loaded: LoadedRun | RunTree,
  output: boolean | { json: boolean; html?: boolean },
  streams: CliStreams,
): Promise<number> {
  const { run } = loaded;
  const { json, html = false } = typeof output === 'boolean' ? { json: output } : output;
  if (html) {
    const [{ standaloneRunPage }, { viewOfLoaded }] = await Promise.all([
      import('../../src/server/console/pages.js'),
      import('../../src/server/run-view.js'),
    ]);
    streams.stdout.write(standaloneRunPage(viewOfLoaded(loaded, shownSlots)));
    return 0;
  }
  if (json) {
    const children = childrenJson(loaded);
    streams.stdout.write(
      `${terminalSafeJson({ ...run, timeline: timelineOf(loaded), ...(children.length > 0 && { children }) })}\n`,
    );
    return 0;
  }
  const lines = [
    `run ${run.runId} · pipeline ${run.pipeline} · ${run.status} · started ${new Date(run.createdAt).toISOString()}`,
    `task: ${shortText(String(run.input.task ?? ''), 200)}`,
    ...workspaceLines(loaded.checkpoints.at(-1)?.state),
    '',
  ];
  lines.push(...timelineLines(loaded, itemLines));
  const plan = planOfState(loaded.checkpoints.at(-1)?.state);
  if (plan !== undefined) lines.push('', ...planGraphLines(plan, loaded.journal));
  const outcome = run.outcome;
  lines.push('');
  if (outcome) {
    lines.push(
      `stop: ${outcome.stopReason.kind}${outcome.stopReason.stage ? ` at ${outcome.stopReason.stage}` : ''} — ${outcome.stopReason.message}`,
    );
    lines.push(
      `iterations: ${outcome.iterations} · tokens: ${outcome.tokens}${outcome.partial ? ' · partial answer' : ''}`,
    );
    lines.push(`answer: ${outcome.answer ?? '(none)'}`);
  } else {
    lines.push(
      `not finished: ${run.head} journal entries so far; continue it with "${invokedName()} resume ${run.runId}"`,
    );
  }
  streams.stdout.write(`${terminalSafe(lines.join('\n'))}\n`);
  return 0;
}
