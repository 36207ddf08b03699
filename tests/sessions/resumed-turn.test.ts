// A session turn cancelled mid-run is kept with its status; resuming it must leave one turn for that run, not two.
import { describe, expect, it } from 'vitest';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memorySessions } from '../../src/sessions/memory-sessions.js';
import { sessionScope } from '../../src/sessions/types.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { calculatorTool } from '../../src/tools/calculator.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { reactPipeline } from '../../pipelines/index.js';

describe('a resumed cancelled session turn', () => {
  it('is stored once, as it ended the last time', async () => {
    const sessions = memorySessions();
    const store = memoryStore();
    const pipeline = reactPipeline({ session: {} });
    const tools = new ToolRegistry([calculatorTool()]);
    const controller = new AbortController();
    // The person cancels while the model thinks about the calculator's result.
    const cancelling = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"12 * 12"}' }] },
      () => {
        controller.abort(new Error('cancelled by the person'));
        return { content: 'too late' };
      },
    ]);
    const input = { task: 'What is 12 * 12?', session: 's1' };
    const first = await runPipeline(pipeline, input, {
      store,
      signal: controller.signal,
      deps: { model: cancelling, tools, sessions },
    });
    expect(first.status).toBe('cancelled');
    expect((await sessions.load(sessionScope('s1'))).turns).toMatchObject([
      { runId: first.runId, status: 'cancelled' },
    ]);
    // The answer the cancelled call gave is served from the journal: no model call is left to make.
    const model = new ScriptedModel([]);
    const resumed = await resumeRun(store, first.runId, { pipeline, deps: { model, tools, sessions } });
    expect(resumed.status).toBe('completed');
    const turns = (await sessions.load(sessionScope('s1'))).turns;
    expect(turns.map((turn) => [turn.seq, turn.runId, turn.answer, turn.status])).toEqual([
      [1, first.runId, resumed.answer, undefined],
    ]);
  });
});
