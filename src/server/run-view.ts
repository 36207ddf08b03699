// What the API shows of a run: its summary, the timeline (as `stageloop show` has it), and the state slots the
// application asks to show (the plan, verdicts and replans, say) from its latest checkpoint.
import type { JsonObject, JsonValue } from '../common/json.js';
import { loadRun, type LoadedRun } from '../durable/inspect.js';
import type { RunStore, RunSummary } from '../store/types.js';
import { timelineOf, type TimelineItem } from '../durable/timeline.js';
import { withoutQuietGuards } from '../tracing/quiet-guards.js';
import type { RunTree } from '../durable/run-tree.js';

export interface RunListItem {
  runId: string;
  pipeline: string;
  status: string;
  task: string;
  createdAt: number;
  updatedAt: number;
  iterations: number;
  tokens: number;
  /** An eval's run: which eval, case and variant (recorded as `options.eval`). */
  eval?: JsonValue;
}

export function listItemOf(run: RunSummary): RunListItem {
  const { runId, pipeline, status, createdAt, updatedAt, iterations, tokens } = run;
  const item: RunListItem = {
    runId,
    pipeline,
    status,
    task: String(run.input.task ?? ''),
    createdAt,
    updatedAt,
    iterations,
    tokens,
  };
  if (run.options.eval !== undefined) item.eval = run.options.eval;
  return item;
}

/**
 * What a run's page (console, `stageloop show --html`, eval reports) reads of each slot it draws: the view is typed by
 * it, and tests/server/page-view.test.ts checks each name and shape against the stages' own types in StageSlots.
 */
export interface PageSlots {
  plan: { steps: { id?: string; description: string; status: string; dependsOn?: string[]; parent?: string }[] };
  evaluate: { history: { iteration: number; verdict: string; reason: string }[] };
  replan: { decisions: { afterStep: number; ended?: string[]; applied: boolean; reason: string }[] };
}

/** The slots the page reads by name, `view.slots.plan` and so on: the application shows at least these. */
export const pageSlotNames = ['plan', 'evaluate', 'replan'] as const satisfies readonly (keyof PageSlots)[];

/** The shown slots of the latest checkpoint, each null when the run has none or no checkpoint. */
export type ShownSlots = { [Name in keyof PageSlots]?: PageSlots[Name] | null } & Record<string, JsonValue | undefined>;

export interface RunView {
  run: RunSummary;
  timeline: TimelineItem[];
  slots: ShownSlots;
  /** The runs its tool calls started (agents, handoffs), each with its own view; absent when there are none. */
  children?: ChildRunView[];
}

export interface ChildRunView {
  /** The tool call of this run that started the child. */
  callId: string;
  /** The agent's path (`coordinator/researcher`), when the child was started as an agent. */
  agent?: string;
  view: RunView;
}

/** `shownSlots`: which state slots the view carries; the application names them (src/server knows no stage). */
export async function runViewOf(store: RunStore, runId: string, shownSlots: readonly string[]): Promise<RunView> {
  return viewOfLoaded(await loadRun(store, runId), shownSlots);
}

/** A run's view; given a tree (loadRunTree, withChildRuns), its children's views come with it. */
export function viewOfLoaded(loaded: LoadedRun | RunTree, shownSlots: readonly string[]): RunView {
  const checkpoint = loaded.checkpoints.at(-1);
  const state: JsonObject = checkpoint?.state ?? {};
  // The checkpoint is the state's JSON: each slot holds its stage's type, which the page-view test checks.
  const slots = Object.fromEntries(shownSlots.map((name) => [name, state[name] ?? null])) as ShownSlots;
  // Guards that did nothing get no row (the quiet rule); their time stays in the run's duration.
  const view: RunView = { run: loaded.run, timeline: withoutQuietGuards(timelineOf(loaded)), slots };
  if ('children' in loaded && loaded.children.size > 0) {
    view.children = [...loaded.children].map(([callId, child]) => {
      const agent = (child.run.options as { agent?: unknown }).agent;
      return { callId, ...(typeof agent === 'string' && { agent }), view: viewOfLoaded(child, shownSlots) };
    });
  }
  return view;
}
