import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resumeRun } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { memoryStore } from '../../src/store/memory-store.js';
import {
  loadRecordedRun,
  recordingModel,
  recordingPipeline,
  recordingTools,
  type RecordedRun,
} from './recording-pipeline.js';

// Runs recorded by the code on main at d264e42, which hashed the state at the end of every iteration and took a
// checkpoint at every one: the code now hashes less often when it records, and must still resume and replay these.
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/durable-main-recordings.json', import.meta.url), 'utf8'),
) as { recordedBy: string; runs: RecordedRun[] };
const recorded = (runId: string) => fixture.runs.find((run) => run.header.runId === runId)!;

async function storeWith(runId: string) {
  const store = memoryStore();
  await loadRecordedRun(store, recorded(runId));
  return store;
}

describe('runs recorded by the code on main', () => {
  it('hold a state hash at the end of every iteration (the recording this code must still read)', () => {
    const ends = recorded('main-completed').journal.filter(
      (entry) => entry.kind === 'stage' && entry.zone === 'iteration' && entry.stage === 'tally',
    );
    expect(ends).toHaveLength(4);
    for (const end of ends) expect((end.data as { hash?: string }).hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('replay identically, comparing the state wherever the recording hashed it', async () => {
    const store = await storeWith('main-completed');
    const report = await replayRun(store, 'main-completed', { pipeline: recordingPipeline() });
    expect(report.divergence).toBeUndefined();
    expect(report.identical).toBe(true);
    expect(report.replayed.stateHash).toBe(report.recorded.stateHash);
    // A change only the state shows is named at the iteration it happened in, as main's replay named it.
    const drifted = await replayRun(store, 'main-completed', { pipeline: recordingPipeline({ drift: 2 }) });
    expect(drifted.divergence).toMatchObject({ zone: 'iteration', iteration: 2, stage: 'tally', what: 'state' });
  });

  it('resume after a crash mid-tool-call without making a completed call again, then replay identically', async () => {
    const store = await storeWith('main-crashed');
    const log: string[] = [];
    // The first reply and the first sum are in the journal, and so is the second reply (its tool call was in flight).
    const model = recordingModel(2);
    const result = await resumeRun(store, 'main-crashed', {
      pipeline: recordingPipeline(),
      deps: { model, tools: recordingTools(log) },
      takeOver: true,
    });
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'done: 11', iterations: 4 });
    expect(log).toEqual(['3 + 4', '5 + 6']);
    const report = await replayRun(store, 'main-crashed', { pipeline: recordingPipeline() });
    expect(report.divergence).toBeUndefined();
    expect(report.identical).toBe(true);
  });
});
