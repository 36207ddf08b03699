import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { insertBefore } from '../../src/engine/pipeline.js';
import type { Stage } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { RunFinishedError, type RunStore } from '../../src/store/types.js';
import type { StageloopError } from '../../src/common/stageloop-error.js';
import { recordingTools } from './recording-pipeline.js';

const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });

const script = () => [
  { toolCalls: [calc('1 + 2')] },
  { toolCalls: [calc('3 + 4')] },
  { toolCalls: [calc('5 + 6')] },
  { content: 'done: 11' },
];

describe('a recorded run', () => {
  it('journals every call and stage end with contiguous seqs, checkpoints, and the outcome', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const result = await runPipeline(
      reactPipeline({ guards: false }),
      { task: 'add things' },
      { store, deps: { model: new ScriptedModel(script()), tools: recordingTools(log) } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'done: 11' });
    const journal = await store.journal(result.runId);
    expect(journal.map((entry) => entry.seq)).toEqual(journal.map((_entry, index) => index + 1));
    expect(journal.filter((entry) => entry.kind === 'model')).toHaveLength(4);
    expect(journal.filter((entry) => entry.kind === 'tool')).toHaveLength(3);
    // context, 4 iterations x 4 stages, the start of finalize, summarize
    expect(journal.filter((entry) => entry.kind === 'stage')).toHaveLength(1 + 16 + 2);
    const run = await store.get(result.runId);
    expect(run).toMatchObject({
      status: 'completed',
      pipeline: 'react',
      iterations: 4,
      answer: 'done: 11',
      owner: null,
    });
    expect((await store.checkpoints(result.runId)).length).toBeGreaterThanOrEqual(3);
    // Requests repeat the conversation; the journal keeps only what each one adds.
    const last = journal.filter((entry) => entry.kind === 'model').pop()!.data as {
      request: { prefix: number; messages: unknown[] };
    };
    expect(last.request.prefix).toBeGreaterThan(4);
    expect(last.request.messages.length).toBeLessThanOrEqual(2);
  });

  it('replays identically offline, and a changed pipeline is reported at its first divergent stage', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const result = await runPipeline(
      reactPipeline(),
      { task: 'add things' },
      { store, deps: { model: new ScriptedModel(script()), tools: recordingTools(log) } },
    );
    const same = await replayRun(store, result.runId, { pipeline: reactPipeline() });
    expect(same.identical).toBe(true);
    expect(same.result.answer).toBe('done: 11');
    expect(same.replayed.stateHash).toBe(same.recorded.stateHash);
    expect(log).toHaveLength(3);

    const noter: Stage = {
      name: 'noter',
      execute: (state, ctx) => {
        if (ctx.iteration === 2) state.nextTurn.notes.push('be brief');
      },
    };
    const changed = await replayRun(store, result.runId, { pipeline: insertBefore(reactPipeline(), 'think', noter) });
    expect(changed.identical).toBe(false);
    expect(changed.divergence).toMatchObject({ zone: 'iteration', iteration: 1, stage: 'noter' });
    const warmer = await replayRun(store, result.runId, { pipeline: reactPipeline({ think: { temperature: 0.5 } }) });
    expect(warmer.divergence).toMatchObject({ zone: 'iteration', iteration: 1, stage: 'think', what: 'model_request' });
    expect(warmer.divergence?.message).toBe(
      'the model request in stage "think" (iteration 1) differs: temperature: recorded null, replayed 0.5',
    );
    const terse = await replayRun(store, result.runId, {
      pipeline: reactPipeline({ context: { instructions: 'You are terse.' } }),
    });
    expect(terse.divergence).toMatchObject({ zone: 'setup', stage: 'context', what: 'state' });
  });
});

describe('resume', () => {
  it('continues a run whose owner stopped mid-tool-call: completed calls are served, not made again', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const hang = recordingTools(log, (expression) => (expression === '3 + 4' ? new Promise(() => {}) : undefined));
    void runPipeline(
      reactPipeline(),
      { task: 'add things' },
      { store, deps: { model: new ScriptedModel(script()), tools: hang, ids: { newId: () => 'run-a' } } },
    );
    await waitFor(() => log.length === 2);
    const [running] = await store.list();
    expect(running).toMatchObject({ runId: 'run-a', status: 'running' });

    // The second model call's reply and the first tool call are in the journal: only the rest is asked for.
    const model = new ScriptedModel([{ toolCalls: [calc('5 + 6')] }, { content: 'done: 11' }]);
    const result = await resumeRun(store, 'run-a', {
      pipeline: reactPipeline(),
      deps: { model, tools: recordingTools(log) },
      takeOver: true,
    });
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'done: 11', iterations: 4 });
    // 1 + 2 ran once; 3 + 4 was in flight when the owner stopped and changes nothing, so it ran again; 5 + 6 once.
    expect(log).toEqual(['1 + 2', '3 + 4', '3 + 4', '5 + 6']);
    expect((await store.get('run-a'))?.status).toBe('completed');
    const replay = await replayRun(store, 'run-a', { pipeline: reactPipeline() });
    expect(replay.identical).toBe(true);
  });

  it('continues a cancelled run from the stage the cancel cut short; finalize runs again at the end', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const controller = new AbortController();
    const cancelling = recordingTools(log, (expression) => {
      if (expression === '3 + 4') controller.abort(new Error('user pressed Ctrl-C'));
      return expression === '3 + 4' ? new Promise(() => {}) : undefined;
    });
    const cancelled = await runPipeline(
      reactPipeline(),
      { task: 'add things' },
      { store, signal: controller.signal, deps: { model: new ScriptedModel(script()), tools: cancelling } },
    );
    expect(cancelled.status).toBe('cancelled');
    expect((await store.get(cancelled.runId))?.status).toBe('cancelled');
    const model = new ScriptedModel([{ toolCalls: [calc('5 + 6')] }, { content: 'done: 11' }]);
    const result = await resumeRun(store, cancelled.runId, {
      pipeline: reactPipeline(),
      deps: { model, tools: recordingTools(log) },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'done: 11' });
    expect(log).toEqual(['1 + 2', '3 + 4', '3 + 4', '5 + 6']);
    expect((await replayRun(store, cancelled.runId, { pipeline: reactPipeline() })).identical).toBe(true);
  });

  it('refuses a run that already ended, and another pipeline unless forced; the run is left as it was', async () => {
    const store = memoryStore();
    const result = await runPipeline(
      reactPipeline(),
      { task: 'add things' },
      { store, deps: { model: new ScriptedModel(script()), tools: recordingTools([]) } },
    );
    await expect(resumeRun(store, result.runId, { pipeline: reactPipeline() })).rejects.toBeInstanceOf(
      RunFinishedError,
    );

    const log: string[] = [];
    const hang = recordingTools(log, () => new Promise(() => {}));
    void runPipeline(
      reactPipeline(),
      { task: 'add things' },
      { store, deps: { model: new ScriptedModel(script()), tools: hang, ids: { newId: () => 'run-b' } } },
    );
    await waitFor(() => log.length === 1);
    const before = await store.get('run-b');
    const error = await resumeRun(store, 'run-b', {
      pipeline: reactPipeline({ maxIterations: 3 }),
      takeOver: true,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'pipeline_mismatch' });
    expect((error as Error).message).toBe(
      'run run-b was recorded with pipeline "react" of another shape than "react" has now',
    );
    expect((error as StageloopError).hint).toBe('pass --force to resume it anyway');
    expect((await store.journal('run-b')).length).toBe(before?.head);
  });
});

describe('a store that fails', () => {
  let folder: string | undefined;
  afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

  it('ends the run failed with kind store and the reason; finalize still runs', async () => {
    folder = mkdtempSync(join(tmpdir(), 'stageloop-durable-'));
    const file = join(folder, 'runs.db');
    const store: RunStore = sqliteStore(file);
    const removing = recordingTools([], () => rmSync(file));
    const result = await runPipeline(
      reactPipeline(),
      { task: 'add things' },
      { store, deps: { model: new ScriptedModel(script()), tools: removing } },
    );
    expect(result.status).toBe('failed');
    expect(result.stopReason.kind).toBe('store');
    expect(result.stopReason.message).toContain('was removed or replaced');
    expect(result.stages.find((stage) => stage.name === 'summarize')?.calls).toBe(1);
    expect(result.answer).not.toBeNull();
    await store.close();
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition not reached');
}
