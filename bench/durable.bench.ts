// What recording costs: per ReAct turn with no store, the memory store and SQLite, at 2 KB and 20 KB of state; how a
// 100-turn run's cost grows; resume of a 10-turn run stopped at turn 8; replay of a 10-turn run.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { reactPipeline } from '../pipelines/react.js';
import { resumeRun, runPipeline } from '../src/durable/durable-run.js';
import { replayRun } from '../src/durable/replay.js';
import { emptyUsage, type ChatModel, type ChatRequest, type ChatResponse } from '../src/model/types.js';
import { memoryStore } from '../src/store/memory-store.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import type { RunStore } from '../src/store/types.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { collectGarbage, format, median } from './measure.js';

/** Calls the tool until `turns` tool results are in the conversation, then answers; no network, no waiting. */
function instantModel(turns: number, hangAtTurn?: number): ChatModel {
  return {
    provider: 'bench',
    modelName: 'instant',
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const done = request.messages.filter((message) => message.role === 'tool').length;
      if (hangAtTurn !== undefined && done + 1 === hangAtTurn) await new Promise(() => {});
      const base = {
        finishReason: 'stop' as const,
        usage: { ...emptyUsage(), inputTokens: 50, outputTokens: 5 },
        model: 'instant',
        latencyMs: 0,
      };
      if (done >= turns || request.purpose !== 'think')
        return { ...base, content: `done after ${done}`, toolCalls: [] };
      return {
        ...base,
        finishReason: 'tool_calls',
        content: '',
        toolCalls: [{ id: `call_${done + 1}`, name: 'echo', arguments: JSON.stringify({ text: `step ${done + 1}` }) }],
      };
    },
  };
}

const tools = () =>
  new ToolRegistry([
    defineTool({
      name: 'echo',
      description: 'Echoes its text.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
  ]);

/** A task of this many characters: the state holds it twice (input and the user message). */
const taskOf = (stateBytes: number) => `Echo each step. ${'x'.repeat(Math.max(0, stateBytes / 2 - 2_000))}`;

type StoreMaker = () => { store: RunStore | undefined; done: () => Promise<void> };

function sqliteMaker(durability: 'process' | 'power'): StoreMaker {
  return () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-bench-'));
    const store = sqliteStore(join(folder, 'runs.db'), { durability });
    return {
      store,
      done: async () => {
        await store.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  };
}

const makers: Array<[string, StoreMaker]> = [
  ['no store', () => ({ store: undefined, done: async () => undefined })],
  ['memory store', () => ({ store: memoryStore(), done: async () => undefined })],
  ['SQLite (synchronous=NORMAL)', sqliteMaker('process')],
  ['SQLite (synchronous=FULL)', sqliteMaker('power')],
];

/**
 * CPU microseconds (user + system, this process) a run of `turns` turns takes, median over rounds; each round a fresh
 * store. CPU time, not wall time: other processes on a loaded machine do not count in it.
 */
async function runCost(
  maker: StoreMaker,
  turns: number,
  stateBytes: number,
  rounds: number,
  runsPerRound: number,
): Promise<number> {
  const samples: number[] = [];
  const pipeline = reactPipeline({ maxIterations: turns + 2 });
  for (let round = 0; round < rounds + 1; round++) {
    const { store, done } = maker();
    collectGarbage();
    const started = process.cpuUsage();
    for (let run = 0; run < runsPerRound; run++) {
      await runPipeline(
        pipeline,
        { task: taskOf(stateBytes) },
        { store, deps: { model: instantModel(turns), tools: tools() } },
      );
    }
    const used = process.cpuUsage(started);
    if (round > 0) samples.push((used.user + used.system) / runsPerRound);
    await done();
  }
  return median(samples);
}

/** What one more turn costs (runs of 30 turns against runs of 10), and what a run costs besides its turns. */
async function marginal(
  maker: StoreMaker,
  stateBytes: number,
  runsPerRound: number,
): Promise<{ turn: number; run: number }> {
  const short = await runCost(maker, 10, stateBytes, 5, runsPerRound);
  const long = await runCost(maker, 30, stateBytes, 5, runsPerRound);
  const turn = (long - short) / 20;
  return { turn, run: short - 11 * turn };
}

async function overhead(): Promise<void> {
  for (const stateBytes of [2_000, 20_000]) {
    const baseline = await marginal(makers[0]![1], stateBytes, 40);
    console.log(
      `ReAct turn at ~${format(stateBytes / 1000, 0)} KB of state, CPU time (instant model; a turn = (30-turn run - 10-turn run) / 20):`,
    );
    console.log(`  no store: ${format(baseline.turn, 1)} µs per turn, ${format(baseline.run, 0)} µs per run besides`);
    for (const [name, maker] of makers.slice(1)) {
      const cost = await marginal(maker, stateBytes, name.startsWith('SQLite') ? 8 : 40);
      console.log(
        `  ${name}: +${format(cost.turn - baseline.turn, 1)} µs per turn, +${format(cost.run - baseline.run, 0)} µs per run (create, finish) (targets: memory <= 20 µs, SQLite <= 500 µs a turn at 20 KB)`,
      );
    }
  }
}

async function growth(): Promise<void> {
  const { store, done } = sqliteMaker('process')();
  const turns = 100;
  const marks: number[] = [];
  let last = performance.now();
  const model = instantModel(turns);
  const timed: ChatModel = {
    ...model,
    chat: async (request) => {
      const now = performance.now();
      marks.push(now - last);
      last = now;
      return model.chat(request);
    },
  };
  const result = await runPipeline(
    reactPipeline({ maxIterations: turns + 2 }),
    { task: 'Echo each step, 100 times, and keep every result.' },
    { store, deps: { model: timed, tools: tools() } },
  );
  const stateKb = JSON.stringify(result.state).length / 1000;
  const journal = await store!.journal(result.runId);
  const checkpoints = await store!.checkpoints(result.runId);
  const journalKb = journal.reduce((sum, entry) => sum + JSON.stringify(entry.data).length, 0) / 1000;
  const checkpointKb = checkpoints.reduce((sum, checkpoint) => sum + JSON.stringify(checkpoint.state).length, 0) / 1000;
  const window = (from: number, to: number) => format(median(marks.slice(from, to)) * 1000, 0);
  console.log(
    `100-turn run on SQLite: state grows to ${format(stateKb, 0)} KB; a turn takes ${window(1, 11)} µs at turns 1-10, ${window(45, 55)} µs at 45-55, ${window(90, 100)} µs at 90-100`,
  );
  console.log(
    `  journal ${format(journal.length, 0)} entries, ${format(journalKb, 0)} KB; ${checkpoints.length} checkpoints, ${format(checkpointKb, 0)} KB in all (a full checkpoint every turn would be ~${format((stateKb * turns) / 2, 0)} KB); database file ${format(statSync((store as unknown as { path?: string }).path ?? '/dev/null').size / 1000, 0)} KB`,
  );
  await done();
}

async function resumeAndReplay(): Promise<void> {
  const resumes: number[] = [];
  const replays: number[] = [];
  for (let round = 0; round < 7; round++) {
    const { store, done } = sqliteMaker('process')();
    const ids = { newId: () => `bench-${round}` };
    void runPipeline(
      reactPipeline(),
      { task: 'Echo each step.' },
      { store, deps: { model: instantModel(10, 8), tools: tools(), ids } },
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = performance.now();
    const result = await resumeRun(store!, `bench-${round}`, {
      pipeline: reactPipeline(),
      deps: { model: instantModel(10), tools: tools() },
      takeOver: true,
    });
    resumes.push(performance.now() - started);
    if (result.status !== 'stopped' && result.status !== 'completed') throw new Error(`resume ended ${result.status}`);
    const replayStarted = performance.now();
    const report = await replayRun(store!, `bench-${round}`, { pipeline: reactPipeline() });
    replays.push(performance.now() - replayStarted);
    if (!report.identical) throw new Error(`replay diverged: ${report.divergence?.message}`);
    await done();
  }
  console.log(
    `resume of a 10-turn run stopped at turn 8 (SQLite, instant model): ${format(median(resumes), 1)} ms median (target <= 500 ms)`,
  );
  console.log(`replay of that run: ${format(median(replays), 1)} ms median (target <= 50 ms)`);
}

export async function run(): Promise<void> {
  await overhead();
  await growth();
  await resumeAndReplay();
}
