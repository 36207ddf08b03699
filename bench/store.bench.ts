// RunStore cost: one journal append of a model call, one checkpoint at 2 / 20 / 200 KB of state, and how a 100-turn
// run's cost grows with a full checkpoint every turn against journal entries only; memory, SQLite NORMAL and FULL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../src/common/json.js';
import { memoryStore } from '../src/store/memory-store.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import type { Checkpoint, Claim, StoredEntry, RunStore } from '../src/store/types.js';
import { format, median } from './measure.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-store-bench-'));
let files = 0;
const kinds: Array<[string, () => RunStore]> = [
  ['memory', () => memoryStore()],
  ['sqlite NORMAL', () => sqliteStore(join(directory, `normal-${++files}.db`))],
  ['sqlite FULL', () => sqliteStore(join(directory, `full-${++files}.db`), { durability: 'power' })],
];
const owner = { id: 'bench', pid: process.pid, host: 'bench' };

/** A chat message of about `bytes` of JSON, the unit the state and a model call grow by. */
function message(index: number, bytes: number): JsonObject {
  return {
    role: index % 2 ? 'assistant' : 'tool',
    content: `turn ${index}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`.slice(0, bytes),
  };
}

function stateOf(bytes: number): JsonObject {
  const messages = Array.from({ length: Math.max(1, Math.round(bytes / 1_000)) }, (_, index) => message(index, 950));
  return { runId: 'bench', iteration: messages.length, usage: { inputTokens: 1_000, outputTokens: 200 }, messages };
}

/** A model call as the recorder keeps it: the request's last messages, the response, usage. */
const modelCall: JsonObject = {
  request: {
    purpose: 'think',
    messages: [message(1, 600), message(2, 600), message(3, 400)],
    tools: ['calculator', 'web_search'],
  },
  response: {
    content: null,
    finishReason: 'tool_calls',
    toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"17*23+4"}' }],
  },
  usage: { inputTokens: 812, outputTokens: 24 },
};

const entryAt = (seq: number, kind: StoredEntry['kind'], data: StoredEntry['data']): StoredEntry => ({
  seq,
  kind,
  zone: 'iteration',
  iteration: 1,
  stage: 'think',
  at: seq,
  data,
});
const checkpointAt = (seq: number, state: JsonObject): Checkpoint => ({
  seq,
  position: { zone: 'iteration', iteration: 1, nextStage: 0, steer: null, breakRequested: false, ended: null },
  state,
  stateHash: 'bench',
  at: seq,
});

async function started(store: RunStore, runId: string): Promise<Claim> {
  return store.create(
    { runId, pipeline: 'bench', fingerprint: 'f', version: '0', input: { task: 'bench' }, options: {}, createdAt: 0 },
    owner,
    60_000,
  );
}

const cpuMicroseconds = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/**
 * µs per write over 5 rounds of `count` writes, each its own transaction, as "wall / CPU", each the best round: the
 * machine is shared, and CPU time (this process's, user + system) does not count the time others held the cores.
 */
async function perWrite(
  make: () => RunStore,
  count: number,
  write: (store: RunStore, claim: Claim, seq: number) => Promise<void>,
): Promise<string> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 6; round++) {
    const store = make();
    const claim = await started(store, `run-${round}`);
    const start = performance.now();
    const startCpu = cpuMicroseconds();
    for (let seq = 1; seq <= count; seq++) await write(store, claim, seq);
    if (round > 0) {
      wall.push(((performance.now() - start) * 1_000) / count);
      cpu.push((cpuMicroseconds() - startCpu) / count);
    }
    await store.close();
  }
  return `${format(Math.min(...wall), 0)} / ${format(Math.min(...cpu), 0)}`;
}

async function singleWrites(): Promise<void> {
  console.log(
    `model-call entry: ${format(JSON.stringify(modelCall).length / 1_024)} KB of JSON; µs per write (wall / CPU, best of 5 rounds), each its own transaction`,
  );
  console.log(
    '| store | model-call entry | checkpoint 2 KB | checkpoint 20 KB | checkpoint 200 KB | 20 KB given as JSON text |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [name, make] of kinds) {
    const cells = [
      await perWrite(make, 400, (store, claim, seq) => store.append(claim, [entryAt(seq, 'model', modelCall)])),
    ];
    for (const kilobytes of [2, 20, 200]) {
      const state = stateOf(kilobytes * 1_024);
      const count = kilobytes === 200 ? 40 : 200;
      cells.push(
        await perWrite(make, count, (store, claim, seq) =>
          store.append(claim, [entryAt(seq, 'stage', { stage: 'think' })], { checkpoint: checkpointAt(seq, state) }),
        ),
      );
    }
    // What the store itself adds when the recorder hands over the text it hashed.
    const given = checkpointAt(0, stateOf(20 * 1_024));
    const stateJson = JSON.stringify(given.state);
    cells.push(
      await perWrite(make, 200, (store, claim, seq) =>
        store.append(claim, [entryAt(seq, 'stage', { stage: 'think' })], { checkpoint: { ...given, seq, stateJson } }),
      ),
    );
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

/**
 * A 100-turn ReAct run whose state grows by ~2 KB a turn (two messages): each turn journals a model call, a tool
 * call and four stage boundaries in one transaction, with or without a full checkpoint of the state.
 */
async function hundredTurns(
  make: () => RunStore,
  withCheckpoint: boolean,
): Promise<{ totalMs: number; cpuMs: number; turn: number[] }> {
  const store = make();
  const claim = await started(store, 'hundred');
  const state = stateOf(2 * 1_024);
  const messages = state.messages as JsonObject[];
  const turn: number[] = [];
  let seq = 0;
  const startCpu = cpuMicroseconds();
  for (let index = 1; index <= 100; index++) {
    messages.push(message(2 * index, 1_000), message(2 * index + 1, 1_000));
    state.iteration = index;
    const entries = [
      entryAt(++seq, 'model', modelCall),
      entryAt(++seq, 'tool', { name: 'calculator', arguments: { expression: '17*23+4' }, result: '395' }),
    ];
    for (const stage of ['context', 'think', 'act', 'observe'])
      entries.push(entryAt(++seq, 'stage', { stage, signal: null, stateHash: 'h' }));
    const start = performance.now();
    await store.append(claim, entries, withCheckpoint ? { checkpoint: checkpointAt(seq, state) } : {});
    turn.push((performance.now() - start) * 1_000);
  }
  const cpuMs = (cpuMicroseconds() - startCpu) / 1_000;
  await store.close();
  return { totalMs: turn.reduce((sum, value) => sum + value, 0) / 1_000, cpuMs, turn };
}

async function growth(): Promise<void> {
  console.log(
    '\n100-turn run, state 2 KB growing to ~200 KB (one transaction per turn: 6 entries, with or without a full checkpoint); median of 3 runs',
  );
  console.log('| store | per turn | turn 1 | turn 50 | turn 100 | whole run: wall / CPU |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, make] of kinds) {
    for (const withCheckpoint of [true, false]) {
      const runs: Array<{ totalMs: number; cpuMs: number; turn: number[] }> = [];
      for (let round = 0; round < 4; round++) runs.push(await hundredTurns(make, withCheckpoint));
      runs.shift();
      const at = (index: number) =>
        format(median(runs.map((run) => median(run.turn.slice(Math.max(0, index - 3), index + 2)))), 0);
      const total = median(runs.map((run) => run.totalMs));
      const cpu = median(runs.map((run) => run.cpuMs));
      console.log(
        `| ${name} | ${withCheckpoint ? 'full checkpoint' : 'journal only'} | ${at(1)} µs | ${at(50)} µs | ${at(99)} µs | ${format(total)} / ${format(cpu)} ms |`,
      );
    }
  }
}

export async function run(): Promise<void> {
  try {
    await singleWrites();
    await growth();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
