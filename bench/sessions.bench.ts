// What a session adds to a run's start: the time from runPipeline to the first model call, for a run without a
// session and for one whose session holds 100 turns and 20 facts (SQLite and memory), plus the turn's append in finalize.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runPipeline } from '../src/engine/runner.js';
import { emptyUsage, type ChatModel, type ChatResponse } from '../src/model/types.js';
import { memorySessions } from '../src/sessions/memory-sessions.js';
import { sqliteSessions } from '../src/sessions/sqlite-sessions.js';
import type { SessionStore } from '../src/sessions/types.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { reactPipeline } from '../pipelines/index.js';
import { format, median } from './measure.js';

const rounds = 50;

/** Answers at once and notes when it was first asked: the run's start ends there. */
function firstCallModel(): ChatModel & { askedAt: number } {
  const model = {
    provider: 'bench',
    modelName: 'gpt-4o-mini',
    askedAt: 0,
    async chat(): Promise<ChatResponse> {
      model.askedAt = performance.now();
      return {
        content: 'The answer is 42.',
        toolCalls: [],
        finishReason: 'stop',
        usage: emptyUsage(),
        model: 'bench',
        latencyMs: 0,
      };
    },
  };
  return model;
}

async function fill(store: SessionStore, session: string): Promise<void> {
  const scope = { user: 'bench', session };
  for (let turn = 1; turn <= 100; turn++) {
    await store.appendTurn(scope, {
      runId: `run-${turn}`,
      task: `What is ${turn} * 12, and then add ${turn}?`,
      answer: `${turn} * 12 + ${turn} = ${turn * 13}`,
      tools: [`calculator(${turn} * 12 + ${turn}) → ${turn * 13}`],
      at: turn,
    });
  }
  for (let fact = 1; fact <= 20; fact++)
    await store.setFact(scope, {
      key: `fact ${fact}`,
      value: `value number ${fact} of the bench`,
      sourceRun: 'bench',
      updated: fact,
    });
}

/** Median ms to the first model call and median ms of the whole run, over `rounds` runs. */
async function measure(
  sessions: SessionStore | undefined,
  session: string | undefined,
): Promise<{ startMs: number; runMs: number }> {
  // A huge budget: this measures loading and rendering, not compaction.
  const pipeline = session ? reactPipeline({ session: { memory: { budgetTokens: 10_000_000 } } }) : reactPipeline();
  const tools = new ToolRegistry([]);
  const starts: number[] = [];
  const runs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const model = firstCallModel();
    const started = performance.now();
    const input = session ? { task: 'What is 7 * 6?', session, user: 'bench' } : { task: 'What is 7 * 6?' };
    await runPipeline(pipeline, input, { deps: sessions ? { model, tools, sessions } : { model, tools } });
    runs.push(performance.now() - started);
    starts.push(model.askedAt - started);
  }
  // The first runs warm up the JIT: drop a fifth.
  return { startMs: median(starts.slice(rounds / 5)), runMs: median(runs.slice(rounds / 5)) };
}

export async function run(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-bench-sessions-'));
  try {
    const opened = performance.now();
    const sqlite = sqliteSessions(join(folder, 'stageloop.db'));
    const openMs = performance.now() - opened;
    const memory = memorySessions();
    await fill(sqlite, 'long');
    await fill(memory, 'long');
    const plain = await measure(undefined, undefined);
    // Each run appends a turn, so the session grows from 100 turns over the rounds; the empty session is re-made per bench.
    const fromSqlite = await measure(sqlite, 'long');
    const fromMemory = await measure(memory, 'long');
    const loadTimes: number[] = [];
    for (let index = 0; index < 100; index++) {
      const started = performance.now();
      await sqlite.load({ user: 'bench', session: 'long' });
      loadTimes.push(performance.now() - started);
    }
    // A median: a rare load meets a WAL checkpoint or a collection (10-20 ms) and would swamp a mean.
    const loadMs = median(loadTimes);
    sqlite.close();
    console.log(
      `rounds: ${rounds} runs each (medians, first fifth dropped); session: 100 turns then growing by one per run, 20 facts`,
    );
    console.log(
      `run start (runPipeline → first model call), no session:       ${format(plain.startMs, 3)} ms; whole run ${format(plain.runMs, 3)} ms`,
    );
    console.log(
      `run start, 100-turn session in SQLite:                          ${format(fromSqlite.startMs, 3)} ms (+${format(fromSqlite.startMs - plain.startMs, 3)} ms); whole run ${format(fromSqlite.runMs, 3)} ms (append in finalize included)`,
    );
    console.log(
      `run start, 100-turn session in memory:                          ${format(fromMemory.startMs, 3)} ms (+${format(fromMemory.startMs - plain.startMs, 3)} ms); whole run ${format(fromMemory.runMs, 3)} ms`,
    );
    console.log(`SQLite load of the session alone (150 turns, summary, facts):   ${format(loadMs, 3)} ms`);
    console.log(`creating the store file once (better-sqlite3 load, WAL, migrations): ${format(openMs, 2)} ms`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
