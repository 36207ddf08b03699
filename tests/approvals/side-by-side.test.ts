// Approvals in plan steps that run side by side: one pause lists every step's waiting call, each under an id of
// its own even when the model server numbers calls per reply (both steps' first call is "call_1").
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { loggedCalculator, sum } from './fixtures.js';

const twoSteps = {
  content: JSON.stringify({
    goal: 'add both',
    steps: [
      { id: 'a', description: 'Add 1 + 2', dependsOn: [] },
      { id: 'b', description: 'Add 3 + 4', dependsOn: [] },
    ],
  }),
};
const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };

describe('approvals in steps side by side', () => {
  it('both calls wait in one pause under distinct ids; approving both completes the run; replay is identical', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    const pipeline = () => withApproval(planExecuteReplanPipeline(), { registry: tools });
    const first = new ScriptedModel([
      twoSteps,
      { toolCalls: [sum('1 + 2', 'call_1')] },
      { toolCalls: [sum('3 + 4', 'call_1')] },
    ]);
    const paused = await runPipeline(
      pipeline(),
      { task: 'add 1 + 2 and 3 + 4' },
      { store, deps: { model: first, tools } },
    );
    first.assertConsumed();
    expect(paused.status).toBe('interrupted');
    const pending = paused.pending ?? [];
    expect(pending.map((call) => call.arguments).sort()).toEqual([
      JSON.stringify({ expression: '1 + 2' }),
      JSON.stringify({ expression: '3 + 4' }),
    ]);
    expect(new Set(pending.map((call) => call.id)).size).toBe(2);
    expect(log).toEqual([]);

    const rest = new ScriptedModel([{ content: '3' }, { content: '7' }, keep, { content: 'The answer is 10.' }]);
    const decisions = Object.fromEntries(pending.map((call) => [call.id, { approve: true as const }]));
    const done = await resumeRun(store, paused.runId, {
      pipeline: pipeline(),
      deps: { model: rest, tools },
      decisions,
    });
    rest.assertConsumed();
    expect(done).toMatchObject({ status: 'completed', answer: 'The answer is 10.' });
    expect([...log].sort()).toEqual(['1 + 2', '3 + 4']);
    const replay = await replayRun(store, paused.runId, { pipeline: pipeline() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
  });
});
