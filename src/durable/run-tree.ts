// A recorded run with the runs its tool calls started (agents, handoffs): each is recorded in the same store as
// `<run id>.<call id>` with its parent named, so `stageloop show` can print them under the call that started them.
import type { RunStore } from '../store/types.js';
import { loadRun, type LoadedRun } from './inspect.js';

export interface RunTree extends LoadedRun {
  /** The child runs by the id of the tool call that started them. */
  children: ReadonlyMap<string, RunTree>;
}

/** Agents nest at most a few deep; this bounds a store whose ids happen to chain. */
const maxDepth = 8;

export async function loadRunTree(store: RunStore, runId: string): Promise<RunTree> {
  return withChildren(store, await loadRun(store, runId), maxDepth);
}

/** The tree of a run already loaded (a view built from cached journal entries): only its children are read. */
export function withChildRuns(store: RunStore, loaded: LoadedRun): Promise<RunTree> {
  return withChildren(store, loaded, maxDepth);
}

async function withChildren(store: RunStore, loaded: LoadedRun, depth: number): Promise<RunTree> {
  const children = new Map<string, RunTree>();
  if (depth > 0) {
    for (const callId of callIdsOf(loaded)) {
      const childId = `${loaded.run.runId}.${callId}`;
      const child = await store.get(childId);
      if (child === undefined || (child.options as { parent?: unknown }).parent !== loaded.run.runId) continue;
      children.set(callId, await withChildren(store, await loadRun(store, childId), depth - 1));
    }
  }
  return { ...loaded, children };
}

/** Every tool call the run's model asked for, in order, once (a call cut off by a crash has no tool entry yet). */
function callIdsOf(loaded: LoadedRun): Set<string> {
  const ids = new Set<string>();
  for (const entry of loaded.journal) {
    if (entry.kind === 'model') for (const call of entry.data.response?.toolCalls ?? []) ids.add(call.id);
    if (entry.kind === 'tool') for (const call of entry.data.calls) ids.add(call.id);
  }
  return ids;
}
