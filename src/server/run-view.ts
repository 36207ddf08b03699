// What the API shows of a run: its summary, the timeline (as `stageloop show` has it), and the plan, verdicts and
// replan decisions from its latest checkpoint.
import type { JsonObject, JsonValue } from '../common/json.js';
import { loadRun, type LoadedRun } from '../durable/inspect.js';
import type { RunStore, RunSummary } from '../store/types.js';
import { timelineOf, type TimelineItem } from '../durable/timeline.js';

export interface RunListItem {
  runId: string;
  pipeline: string;
  status: string;
  task: string;
  createdAt: number;
  updatedAt: number;
  iterations: number;
  tokens: number;
}

export function listItemOf(run: RunSummary): RunListItem {
  const { runId, pipeline, status, createdAt, updatedAt, iterations, tokens } = run;
  return { runId, pipeline, status, task: String(run.input.task ?? ''), createdAt, updatedAt, iterations, tokens };
}

export interface RunView {
  run: RunSummary;
  timeline: TimelineItem[];
  /** The plan, evaluate and replan slots of the latest checkpoint (null when the run has none or no checkpoint). */
  slots: { plan: JsonValue; evaluate: JsonValue; replan: JsonValue };
}

const shownSlots = ['plan', 'evaluate', 'replan'] as const;

export async function runViewOf(store: RunStore, runId: string): Promise<RunView> {
  return viewOfLoaded(await loadRun(store, runId));
}

export function viewOfLoaded(loaded: LoadedRun): RunView {
  const checkpoint = loaded.checkpoints.at(-1);
  const state: JsonObject = checkpoint?.state ?? {};
  const slots = Object.fromEntries(shownSlots.map((name) => [name, state[name] ?? null])) as RunView['slots'];
  return { run: loaded.run, timeline: timelineOf(loaded), slots };
}
