// The tool gate under replay: what a live call taints must leave the same state as the recording serves, so a run
// whose gate saw untrusted content (and a person approved a held write after it) replays identical, hashed at every
// stage as the CLI and the server record.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { call, fetchCall, gateTools, send } from './gate-fixtures.js';

describe('the gate replays identical', () => {
  it('untrusted content read in the first act, then a held write approved: replay says identical', async () => {
    const log: string[] = [];
    const { fetchPage, sendNote, lookup } = gateTools(log);
    const tools = new ToolRegistry([fetchPage, sendNote, lookup], {
      approvals: { tools: ['send_note'], taintPolicy: 'ask' },
    });
    const model = () =>
      new ScriptedModel([{ toolCalls: [fetchCall()] }, { toolCalls: [send('news')] }, { content: 'Done.' }]);
    const store = memoryStore();
    const paused = await runPipeline(
      reactPipeline(),
      { task: 'Read and note' },
      {
        store,
        hashEvery: 'stage',
        deps: { model: model(), tools },
      },
    );
    expect(paused.status).toBe('interrupted');
    const done = await resumeRun(store, paused.runId, {
      pipeline: reactPipeline(),
      deps: { model: new ScriptedModel([{ content: 'Done.' }]), tools },
      decisions: { call_send: { approve: true } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'Done.' });
    expect(log).toEqual(['news']);
    const replay = await replayRun(store, paused.runId, { pipeline: reactPipeline() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
  });

  it('untrusted content and read-only calls only (no pause): replay says identical', async () => {
    const { fetchPage, sendNote, lookup } = gateTools([]);
    const tools = new ToolRegistry([fetchPage, sendNote, lookup], { approvals: { taintPolicy: 'ask' } });
    const model = new ScriptedModel([
      { toolCalls: [fetchCall()] },
      { toolCalls: [call('lookup', { word: 'news' }, 'call_lookup')] },
      { content: 'Done.' },
    ]);
    const store = memoryStore();
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Read' },
      { store, hashEvery: 'stage', deps: { model, tools } },
    );
    expect(result.status).toBe('completed');
    const replay = await replayRun(store, result.runId, { pipeline: reactPipeline() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
  });
});
