import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { breakLoop, interruptRun, isSignal } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import { runPipeline as runRecorded, resumeRun } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { memoryStore } from '../../src/store/memory-store.js';

/** Asks once per run (the slot remembers it was answered); counts every stage run in the input's log. */
function pipeline(log: string[]) {
  const before: Stage = { name: 'before', execute: () => void log.push('before') };
  const asking: Stage = {
    name: 'asking',
    execute(state) {
      log.push('asking');
      if (state.messages.length === 0) {
        state.messages.push({ role: 'user', content: 'asked' });
        return interruptRun('waiting for a person', [{ id: 'q1', kind: 'question', reason: 'a test asks' }]);
      }
      return undefined;
    },
  };
  const after: Stage = {
    name: 'after',
    execute(state) {
      state.answer = 'done';
      log.push('after');
      return breakLoop('answered');
    },
  };
  const summary: Stage = { name: 'summary', execute: () => void log.push('finalize') };
  return definePipeline({
    name: 'asks',
    setup: [],
    iteration: [before, asking, after],
    finalize: [summary],
    maxIterations: 1,
  });
}

describe('interruptRun', () => {
  it('ends the run as interrupted with its pending list; the rest of the iteration and finalize do not run', async () => {
    const log: string[] = [];
    const result = await runPipeline(pipeline(log), { task: 't' });
    expect(result).toMatchObject({
      status: 'interrupted',
      partial: true,
      answer: null,
      stopReason: { kind: 'awaiting_decision', stage: 'asking', message: 'waiting for a person' },
    });
    expect(result.pending).toEqual([{ id: 'q1', kind: 'question', reason: 'a test asks' }]);
    expect(log).toEqual(['before', 'asking']);
    expect(result.state.stop).toBeUndefined();
  });

  it('a recorded pause is checkpointed at the asking stage: the resume re-enters it, never the stages before it', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const paused = await runRecorded(pipeline(log), { task: 't' }, { store });
    expect((await store.get(paused.runId))?.status).toBe('interrupted');
    const resumed = await resumeRun(store, paused.runId, { pipeline: pipeline(log) });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'done' });
    expect(log).toEqual(['before', 'asking', 'asking', 'after', 'finalize']);
    const replay = await replayRun(store, paused.runId, { pipeline: pipeline([]) });
    expect(replay).toMatchObject({ identical: true, replayed: { status: 'completed' } });
  });

  it('a run still paused replays offline to the same pause', async () => {
    const store = memoryStore();
    const paused = await runRecorded(pipeline([]), { task: 't' }, { store });
    const replay = await replayRun(store, paused.runId, { pipeline: pipeline([]) });
    expect(replay.identical).toBe(true);
    expect(replay.result.status).toBe('interrupted');
    expect(replay.result.pending).toEqual(paused.pending);
  });

  it('needs something to wait for, and is a signal', () => {
    expect(() => interruptRun('nothing', [])).toThrow(/at least one pending decision/);
    expect(isSignal(interruptRun('x', [{ id: 'a', kind: 'k', reason: 'r' }]))).toBe(true);
  });
});
