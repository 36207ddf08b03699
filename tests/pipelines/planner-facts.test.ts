// The planner knows what the executor knows: a session's durable facts (`stageloop facts set`) reach the planner's and
// the replanner's requests, spotlighted as saved data, as they reach the executor's system prompt.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memorySessions } from '../../src/sessions/memory-sessions.js';
import { sessionScope } from '../../src/sessions/types.js';
import { fetchTools, graph, keep } from './plan-graph-fixtures.js';

describe('the planner sees the session facts', () => {
  it('six-components "Planner. Input: the goal plus any relevant durable facts": the planner and the replanner get the session facts', async () => {
    const sessions = memorySessions();
    await sessions.setFact(sessionScope('trip'), { key: 'city', value: 'Lisbon', sourceRun: 'cli', updated: 1 });
    const model = new ScriptedModel([
      graph({ id: 'a', description: 'Find the weather in the city', dependsOn: [] }),
      { content: 'Sunny.' },
      keep,
      { content: 'It is sunny in Lisbon.' },
    ]);
    const result = await runPipeline(
      planExecuteReplanPipeline({ session: {} }),
      { task: 'What is the weather where I am going?', session: 'trip' },
      { deps: { model, tools: fetchTools([]), sessions } },
    );
    model.assertConsumed();
    expect(result.status).toBe('completed');
    const [planner, executor, replanner] = model.requests.map((request) => JSON.stringify(request.messages));
    expect(executor).toContain('- city: Lisbon');
    expect(planner).toContain('- city: Lisbon');
    expect(replanner).toContain('- city: Lisbon');
  });
});
