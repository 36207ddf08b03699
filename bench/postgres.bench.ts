// The PostgreSQL store against SQLite NORMAL in the same run: the cost of a turn (six journal entries, with or
// without a 20 KB checkpoint, one transaction), and listing the newest 20 runs (what `stageloop runs` shows) and the
// newest 20 of one status when the store holds 100,000 runs. The server is a local one this bench starts
// (fsync off, as the tests' own); its CPU is another process's, so wall time is the figure that counts here.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import pg from 'pg';
import type { JsonObject } from '../src/common/json.js';
import { postgresStore } from '../src/store/postgres-store.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import type { Checkpoint, Claim, StoredEntry, RunStore } from '../src/store/types.js';
import { startPostgres } from '../tests/support/postgres-server.js';
import { format, median } from './measure.js';

const owner = { id: 'bench', pid: process.pid, host: 'bench' };
const filler = 'lorem ipsum dolor sit amet '.repeat(40).slice(0, 1_000);
const state: JsonObject = {
  iteration: 1,
  messages: Array.from({ length: 20 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'tool', content: filler })),
};
const modelCall: JsonObject = {
  request: { messages: [{ role: 'user', content: filler.slice(0, 600) }] },
  response: { content: null, toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"17*23"}' }] },
  usage: { inputTokens: 812, outputTokens: 24 },
};
const entryAt = (seq: number, data: StoredEntry['data']): StoredEntry => ({
  seq,
  kind: seq % 6 === 1 ? 'model' : 'stage',
  zone: 'iteration',
  iteration: 1,
  stage: 'think',
  at: seq,
  data,
});
const checkpointAt = (seq: number): Checkpoint => ({
  seq,
  position: { zone: 'iteration', iteration: 1, nextStage: 0, steer: null, breakRequested: false, ended: null },
  state,
  stateHash: 'bench',
  at: seq,
});

const cpuMicroseconds = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** µs per turn (wall / this process's CPU), the best of 5 rounds of 200 turns, each turn one append. */
async function perTurn(make: (round: number) => RunStore, withCheckpoint: boolean): Promise<string> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 6; round++) {
    const store = make(round);
    const claim: Claim = await store.create(
      {
        runId: `turns-${withCheckpoint}-${round}`,
        pipeline: 'bench',
        fingerprint: 'f',
        version: '0',
        input: { task: 'bench' },
        options: {},
        createdAt: 0,
      },
      owner,
      60_000,
    );
    const start = performance.now();
    const startCpu = cpuMicroseconds();
    let seq = 0;
    for (let turn = 0; turn < 200; turn++) {
      const entries = Array.from({ length: 6 }, (_, index) =>
        entryAt(++seq, index === 0 ? modelCall : { stage: 'think', signal: null }),
      );
      await store.append(
        claim,
        entries,
        withCheckpoint ? { checkpoint: checkpointAt(seq), dropEarlierCheckpoints: true } : {},
      );
    }
    if (round > 0) {
      wall.push(((performance.now() - start) * 1_000) / 200);
      cpu.push((cpuMicroseconds() - startCpu) / 200);
    }
    await store.close();
  }
  return `${format(Math.min(...wall), 0)} / ${format(Math.min(...cpu), 0)}`;
}

/** ms to list the newest 20 runs, and the newest 20 failed ones, median of 20 calls. */
async function listing(store: RunStore): Promise<string> {
  const times = async (body: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let index = 0; index < 21; index++) {
      const start = performance.now();
      await body();
      if (index > 0) samples.push(performance.now() - start);
    }
    return format(median(samples), 2);
  };
  return `${await times(() => store.list({ limit: 20 }))} ms | ${await times(() => store.list({ status: 'failed', limit: 20 }))} ms`;
}

const runsInserted = 100_000;
const statusOf = (index: number) => (index % 50 === 0 ? 'failed' : 'completed');

export async function run(): Promise<void> {
  const server = await startPostgres();
  const directory = mkdtempSync(join(tmpdir(), 'stageloop-postgres-bench-'));
  let files = 0;
  try {
    const kinds: Array<[string, (round: number) => RunStore]> = [
      ['sqlite NORMAL', () => sqliteStore(join(directory, `turns-${++files}.db`))],
      ['postgres (local, fsync off)', (round) => postgresStore(server.url, { schema: `turns_${++files}_${round}` })],
    ];
    console.log(
      "A turn: 6 journal entries (one a 0.8 KB model call) in one append, µs per turn as wall / this process's CPU, best of 5 rounds of 200",
    );
    console.log('| store | journal only | with a 20 KB checkpoint |');
    console.log('|---|---|---|');
    for (const [name, make] of kinds)
      console.log(`| ${name} | ${await perTurn(make, false)} | ${await perTurn(make, true)} |`);

    // 100,000 runs written straight into each store's tables (one statement each), then listed through the store.
    const file = join(directory, 'many.db');
    sqliteStore(file).close();
    const sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
    const database = new sqlite(file);
    const insert =
      database.prepare(`INSERT INTO runs (id, run_id, pipeline, fingerprint, version, input, options, created_at, status, updated_at, epoch, head, iterations, tokens)
      VALUES (?, ?, 'react', 'f', '0', '{"task":"bench"}', '{}', ?, ?, ?, 1, 0, 0, 0)`);
    database.transaction(() => {
      for (let index = 1; index <= runsInserted; index++)
        insert.run(index, `run-${index}`, index, statusOf(index), index);
    })();
    database.close();
    const many = postgresStore(server.url, { schema: 'many' });
    await many.list({ limit: 1 });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query(`INSERT INTO many.runs (run_id, pipeline, fingerprint, version, input, options, created_at, status, updated_at, epoch, head, iterations, tokens)
      SELECT 'run-' || n, 'react', 'f', '0', '{"task":"bench"}', '{}', n, CASE WHEN n % 50 = 0 THEN 'failed' ELSE 'completed' END, n, 1, 0, 0, 0 FROM generate_series(1, ${runsInserted}) n`);
    await client.query('ANALYZE many.runs');
    await client.end();
    console.log(`\nListing at ${runsInserted.toLocaleString('en')} runs (1 in 50 failed), median of 20 calls`);
    console.log('| store | newest 20 (stageloop runs) | newest 20 failed |');
    console.log('|---|---|---|');
    const onSqlite = sqliteStore(file);
    console.log(`| sqlite NORMAL | ${await listing(onSqlite)} |`);
    await onSqlite.close();
    console.log(`| postgres | ${await listing(many)} |`);
    await many.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
    await server.stop();
  }
}
