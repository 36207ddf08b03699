// One crash-test file's workbench: a temp folder, the child built once, a store + model + side-effect log per
// scenario, launched children (killed if a test fails) and the uninterrupted reference run of each mode.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunResult } from '../../src/engine/runner.js';
import { openStore } from '../../src/store/location.js';
import type { RunStore } from '../../src/store/types.js';
import type { ChildConfig } from './crash-child.js';
import { buildChild, spawnChild, startScriptedModel, type Child, type ScriptedModel } from './crash-harness.js';
import type { CrashPipeline } from './crash-pipelines.js';
import type { Reference } from './crash-recovery.js';
import { startPostgres, type PostgresInstance } from '../support/postgres-server.js';

export const modelDelayMs = 40;
export const toolDelayMs = 30;

interface Mode {
  pipeline: CrashPipeline;
  /** ReAct: tool turns before the final answer. */
  toolTurns: number;
  maxIterations: number;
  /** Bytes added to the state so that each checkpoint write takes a few ms (a bigger window to kill inside). */
  paddingBytes: number;
  /** Plan-Execute-Replan: three independent steps side by side, then one that needs them (tool calls in flight together). */
  graphPlan?: boolean;
}
export const modes = {
  // Eight tool turns, then a final answer: completed; summarize keeps the answer without a model call.
  answer: { pipeline: 'react', toolTurns: 8, maxIterations: 10, paddingBytes: 0 },
  // Never answers: stopped at the cap, and summarize asks the model for a summary (a model call in finalize).
  cap: { pipeline: 'react', toolTurns: 1_000, maxIterations: 7, paddingBytes: 0 },
  // A 300 KB state: checkpoints only after setup, on entering finalize and at the end, each a long write.
  padded: { pipeline: 'react', toolTurns: 4, maxIterations: 10, paddingBytes: 300_000 },
  // A plan of three steps, a tool call and a result each, a replanner that keeps the plan, and a composed summary.
  planned: { pipeline: 'plan-execute-replan', toolTurns: 0, maxIterations: 10, paddingBytes: 0 },
  // A graph: three steps side by side (three tool calls in flight at once), then a step that needs all three.
  graph: { pipeline: 'plan-execute-replan', toolTurns: 0, maxIterations: 10, paddingBytes: 0, graphPlan: true },
} satisfies Record<string, Mode>;
export type ModeName = keyof typeof modes;

export interface Setup {
  mode: ModeName;
  model: ScriptedModel;
  store: RunStore;
  config: Omit<ChildConfig, 'action' | 'attempt'>;
}

export interface Lab {
  setUp(name: string, modeName: ModeName): Promise<Setup>;
  tearDown(setup: Setup): Promise<void>;
  launch(setup: Setup, action: ChildConfig['action'], attempt: number, extra?: Partial<ChildConfig>): Child;
  /** The uninterrupted run of a mode (same child, same model, no kills), made once. */
  reference(modeName: ModeName): Promise<Reference>;
  /** The PostgreSQL server the lab's stores live on (postgres labs only). */
  postgres?: PostgresInstance;
  dispose(): Promise<void>;
}

export type LabStore = 'sqlite' | 'postgres';

/** A SQLite file per scenario, or (postgres) one server for the file with a schema per scenario. */
export async function openLab(kind: LabStore = 'sqlite'): Promise<Lab> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-crash-'));
  const [script, postgres] = await Promise.all([buildChild(), kind === 'postgres' ? startPostgres() : undefined]);
  const location = (name: string) =>
    postgres === undefined ? join(folder, `${name}.db`) : `${postgres.url}?schema=${name.replaceAll('-', '_')}`;
  const live = new Set<Child>();
  const references = new Map<ModeName, Promise<Reference>>();
  const lab: Lab = {
    async setUp(name, modeName) {
      const mode: Mode = modes[modeName];
      const model = await startScriptedModel(mode.toolTurns, modelDelayMs, mode.graphPlan ?? false);
      const db = location(name);
      const config = {
        db,
        runId: `run-${modeName}`,
        serverUrl: model.server.url,
        sideLog: join(folder, `${name}.log`),
        pipeline: mode.pipeline,
        maxIterations: mode.maxIterations,
        toolDelayMs,
        paddingBytes: mode.paddingBytes,
      };
      // The parent reads the same store the children write (SQLite WAL: readers never block the writer).
      return { mode: modeName, model, store: openStore({ path: db }), config };
    },
    async tearDown(setup) {
      await setup.store.close();
      await setup.model.close();
    },
    launch(setup, action, attempt, extra = {}) {
      const child = spawnChild(script, { ...setup.config, action, attempt, ...extra });
      live.add(child);
      void child.exited.then(() => live.delete(child));
      return child;
    },
    reference(modeName) {
      let made = references.get(modeName);
      if (made === undefined) {
        made = makeReference(lab, modeName);
        references.set(modeName, made);
      }
      return made;
    },
    ...(postgres !== undefined && { postgres }),
    async dispose() {
      for (const child of live) child.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
      rmSync(dirname(script), { recursive: true, force: true });
      await postgres?.stop();
    },
  };
  return lab;
}

async function makeReference(lab: Lab, modeName: ModeName): Promise<Reference> {
  const setup = await lab.setUp(`reference-${modeName}`, modeName);
  try {
    const child = lab.launch(setup, 'start', 1);
    const exit = await child.exited;
    if (exit.code !== 0) throw new Error(`the reference run exited with ${exit.code}: ${child.stderr}`);
    const checkpoint = await setup.store.latestCheckpoint(setup.config.runId);
    return { result: resultOf(child), checkpointState: checkpoint?.state };
  } finally {
    await lab.tearDown(setup);
  }
}

export function resultOf(child: Child): RunResult {
  const line = child.lines.find((candidate) => candidate.startsWith('result '));
  if (line === undefined) throw new Error(`the child printed no result; stderr: ${child.stderr}`);
  return JSON.parse(line.slice('result '.length)) as RunResult;
}
