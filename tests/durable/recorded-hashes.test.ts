import { describe, expect, it } from 'vitest';
import { runPipeline, type DurableRunOptions } from '../../src/durable/durable-run.js';
import { openRecordJournal } from '../../src/durable/start.js';
import { replayRun } from '../../src/durable/replay.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { makeOwner } from '../../src/store/location.js';
import type { RunStore, StoredEntry } from '../../src/store/types.js';
import { recordingModel, recordingPipeline, recordingTools } from './recording-pipeline.js';

/** About 3 KB of state: a checkpoint every few iterations. */
const padded = { task: 'add 1 + 2, 3 + 4 and 5 + 6', options: { padding: 'x'.repeat(3_000) } };

async function record(store: RunStore, options: Partial<DurableRunOptions> = {}) {
  const result = await runPipeline(recordingPipeline(), padded, {
    store,
    deps: { model: recordingModel(), tools: recordingTools([]) },
    ...options,
  });
  expect(result.status).toBe('completed');
  return { result, journal: await store.journal(result.runId), checkpoints: await store.checkpoints(result.runId) };
}

const hashOf = (entry: StoredEntry) => (entry.data as { hash?: string }).hash;
const iterationEnds = (journal: StoredEntry[]) =>
  journal.filter((entry) => entry.kind === 'stage' && entry.stage === 'tally');

describe('where a recording hashes the state', () => {
  it('by default, only where it takes a checkpoint, whose JSON text it hashes: not at every iteration end', async () => {
    const { journal, checkpoints } = await record(memoryStore());
    const hashed = journal.filter((entry) => hashOf(entry) !== undefined);
    for (const checkpoint of checkpoints) expect(hashOf(journal[checkpoint.seq - 1]!)).toBe(checkpoint.stateHash);
    // A checkpoint held for the next write may give way to a later one before it is written; its hash stays.
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    // After setup, on entering finalize, and between them every few iterations (about 1 KB of state rewritten a turn).
    const ends = iterationEnds(journal);
    expect(ends).toHaveLength(4);
    expect(ends.filter((entry) => hashOf(entry) === undefined).length).toBeGreaterThanOrEqual(2);
    expect(hashed[0]).toMatchObject({ zone: 'setup', stage: 'greet' });
    expect(hashed.at(-1)).toMatchObject({ zone: 'finalize', stage: null });
  });

  it('with hashEvery "stage", after every stage', async () => {
    const { journal } = await record(memoryStore(), { hashEvery: 'stage' });
    const stageEnds = journal.filter((entry) => entry.kind === 'stage');
    expect(stageEnds.filter((entry) => hashOf(entry) === undefined)).toEqual([]);
  });

  it('a replay names a change only the state shows at the next place the recording hashed; with "stage", at its stage', async () => {
    const store = memoryStore();
    const sparse = await record(store);
    const drifted = await replayRun(store, sparse.result.runId, { pipeline: recordingPipeline({ drift: 2 }) });
    const firstHashedAfter = sparse.journal.find((entry) => hashOf(entry) !== undefined && entry.iteration >= 2)!;
    expect(firstHashedAfter.iteration).toBeGreaterThan(2);
    expect(drifted.identical).toBe(false);
    expect(drifted.divergence).toMatchObject({
      zone: firstHashedAfter.zone,
      iteration: firstHashedAfter.iteration,
      stage: firstHashedAfter.stage,
      what: 'state',
    });
    expect((await replayRun(store, sparse.result.runId, { pipeline: recordingPipeline() })).identical).toBe(true);

    const exact = await record(store, { hashEvery: 'stage' });
    const named = await replayRun(store, exact.result.runId, { pipeline: recordingPipeline({ drift: 2 }) });
    expect(named.divergence).toMatchObject({ zone: 'iteration', iteration: 2, stage: 'tally', what: 'state' });
  });

  it('a growing state is checkpointed less often: about 1 KB of state rewritten a turn', async () => {
    const store = memoryStore();
    const big = { task: padded.task, options: { padding: 'x'.repeat(6_000) } };
    const result = await runPipeline(recordingPipeline(), big, {
      store,
      deps: { model: recordingModel(), tools: recordingTools([]) },
    });
    const checkpoints = await store.checkpoints(result.runId);
    // A 6 KB state: after setup and on entering finalize only, none of the four iteration ends.
    expect(checkpoints.map((checkpoint) => checkpoint.position.zone)).toEqual(['setup', 'finalize']);
  });
});

describe('model requests in the journal', () => {
  it("hold what each request added, also when a stage hands the model the state's own message list and adds to it later", async () => {
    const store = memoryStore();
    const pipeline = recordingPipeline({ liveMessages: true });
    const result = await runPipeline(
      pipeline,
      { task: padded.task },
      { store, deps: { model: recordingModel(), tools: recordingTools([]) } },
    );
    const requests = (await store.journal(result.runId))
      .filter((entry) => entry.kind === 'model')
      .map((entry) => (entry.data as { request: { prefix: number; messages: unknown[] } }).request);
    expect(requests.map((request) => [request.prefix, request.messages.length])).toEqual([
      [0, 2],
      [2, 2],
      [4, 2],
      [6, 2],
    ]);
    expect((await replayRun(store, result.runId, { pipeline })).identical).toBe(true);
  });
});

describe("the journal's writes", () => {
  it('start at once when none is in flight, and go one at a time, in order, when one is', async () => {
    const store = memoryStore();
    const claim = await store.create(
      {
        runId: 'writes',
        pipeline: 'p',
        fingerprint: 'f',
        version: '0',
        input: { task: 't' },
        options: {},
        createdAt: 0,
      },
      makeOwner(),
      30_000,
    );
    const calls: number[] = [];
    let release: () => void = () => undefined;
    const slow: RunStore = {
      ...store,
      append(claimed, entries, options) {
        calls.push(entries[0]!.seq);
        if (calls.length === 1)
          return new Promise<void>((resolve) => (release = resolve)).then(() =>
            store.append(claimed, entries, options),
          );
        return store.append(claimed, entries, options);
      },
    };
    const journal = openRecordJournal({ store: slow, claim, leaseMs: 30_000 });
    const where = { zone: 'iteration' as const, iteration: 1, stage: 'ask' };
    journal.record('clock', where, 1);
    const first = journal.flush();
    expect(calls).toEqual([1]);
    journal.record('clock', where, 2);
    const second = journal.flush();
    await Promise.resolve();
    expect(calls).toEqual([1]);
    release();
    await Promise.all([first, second]);
    expect(calls).toEqual([1, 2]);
    expect((await store.journal('writes')).map((entry) => entry.data)).toEqual([1, 2]);
    journal.check();
  });
});
