// Plan steps as a graph: ready steps side by side, blocking, the replan tool, honest goals, durable branches.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { resumeRun, runPipeline as recordedRun } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { StoredEntry } from '../../src/store/types.js';
import { fetchCall, fetchTools, graph, keep, waitFor } from './plan-graph-fixtures.js';

const diamond = (): ScriptedStep[] => [
  graph(
    { id: 'a', description: 'Fetch a', dependsOn: [] },
    { id: 'b', description: 'Fetch b', dependsOn: ['a'] },
    { id: 'c', description: 'Fetch c', dependsOn: ['a'] },
    { id: 'd', description: 'Combine', dependsOn: ['b', 'c'] },
  ),
  { toolCalls: [fetchCall('a')] },
  { content: 'A' },
  keep,
  { toolCalls: [fetchCall('b')] },
  { toolCalls: [fetchCall('c')] },
  { content: 'B' },
  { content: 'C' },
  keep,
  { toolCalls: [fetchCall('d')] },
  { content: 'D' },
  keep,
  { content: 'The answer is D.' },
];

function toolOutput(entry: StoredEntry): unknown {
  return (entry.data as { results: Array<{ content?: unknown }> }).results[0]?.content;
}

describe('plan steps as a dependency graph', () => {
  it('a diamond runs B and C side by side: their tool calls overlap in the journal, each under its own step; replay is identical', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const model = new ScriptedModel(diamond());
    const events: RunEvent[] = [];
    const spans = new Map<string, [number, number]>();
    const result = await recordedRun(
      planExecuteReplanPipeline(),
      { task: 'combine the fetched values' },
      {
        store,
        deps: {
          model,
          tools: fetchTools(log, { together: ['b', 'c'], spans }),
          onEvent: (event) => events.push(event),
        },
      },
    );
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is D.' });
    expect(result.state.plan!.steps.map((step) => [step.id, step.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'completed'],
      ['d', 'completed'],
    ]);
    const journal = await store.journal(result.runId);
    const tools = journal.filter((entry) => entry.kind === 'tool');
    expect(tools.map((entry) => entry.stage).sort()).toEqual(['act#a', 'act#b', 'act#c', 'act#d']);
    const [b, c] = [tools.find((entry) => entry.stage === 'act#b')!, tools.find((entry) => entry.stage === 'act#c')!];
    expect(b.iteration).toBe(c.iteration);
    // Each call passed the barrier (it fails unless the other started meanwhile), so both results are values, and the
    // tool's own clock shows the two executions overlapping. The journal's `at` is when an entry was written, which a
    // busy machine can push past the other call's end, so it says nothing about overlap.
    expect([toolOutput(b), toolOutput(c)]).toEqual(['value of b', 'value of c']);
    const [bStart, bEnd] = spans.get('b')!;
    const [cStart, cEnd] = spans.get('c')!;
    expect(bStart <= cEnd && cStart <= bEnd).toBe(true);
    expect(events.filter((event) => event.type === 'tool_call').map((event) => event.step)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    const updates = events.flatMap((event) => (event.type === 'plan_updated' ? [event.data.running] : []));
    expect(updates).toContainEqual(['b', 'c']);

    const replay = await replayRun(store, result.runId, { pipeline: planExecuteReplanPipeline() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
    expect(replay.result.answer).toBe('The answer is D.');
    // Replay calls no tool: each ran once, in the recorded run.
    expect([...log].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it("resume after the owner stopped with two steps in flight: the finished step's call is served, not made again; replay is identical", async () => {
    const store = memoryStore();
    const log: string[] = [];
    void recordedRun(
      planExecuteReplanPipeline(),
      { task: 'combine' },
      {
        store,
        deps: {
          model: new ScriptedModel(diamond()),
          tools: fetchTools(log, { hang: 'c' }),
          ids: { newId: () => 'run-g' },
        },
      },
    );
    await waitFor(async () => (await store.journal('run-g')).some((entry) => entry.stage === 'act#b'));
    expect(log.filter((key) => key === 'b')).toHaveLength(1);
    // The calls from act on were not recorded for c: its tool call runs again, b's is served.
    const model = new ScriptedModel(diamond().slice(6));
    const result = await resumeRun(store, 'run-g', {
      pipeline: planExecuteReplanPipeline(),
      deps: { model, tools: fetchTools(log) },
      takeOver: true,
    });
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is D.' });
    expect(log.filter((key) => key === 'b')).toHaveLength(1);
    expect(log.filter((key) => key === 'c')).toHaveLength(2);
    const replay = await replayRun(store, 'run-g', { pipeline: planExecuteReplanPipeline() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
  });

  it("maxParallelSteps 1 runs ready steps one after another, by priority then plan order, in the run's own state", async () => {
    const model = new ScriptedModel([
      graph(
        { id: 'a', description: 'Fetch a', dependsOn: [] },
        { id: 'b', description: 'Fetch b', dependsOn: [] },
        { id: 'c', description: 'Fetch c', dependsOn: [], priority: 1 },
      ),
      { content: 'C' },
      keep,
      { content: 'A' },
      keep,
      { content: 'B' },
      keep,
      { content: 'done' },
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      planExecuteReplanPipeline({ maxParallelSteps: 1 }),
      { task: 't' },
      { deps: { model, tools: fetchTools([]), onEvent: (event) => events.push(event) } },
    );
    model.assertConsumed();
    expect(result.status).toBe('completed');
    expect(events.filter((event) => event.type === 'step_started').map((event) => event.data.id)).toEqual([
      'c',
      'a',
      'b',
    ]);
    expect(result.state.plan!.branches).toEqual({});
    expect(model.requests.map((request) => request.purpose)).toEqual([
      'plan',
      'think',
      'replan',
      'think',
      'replan',
      'think',
      'replan',
      'summarize',
    ]);
  });

  it("a chain makes the same model requests with maxParallelSteps 1 as side by side (today's order)", async () => {
    const script = (): ScriptedStep[] => [
      { content: '["Fetch a", "Fetch b"]' },
      { toolCalls: [fetchCall('a')] },
      { content: 'A' },
      keep,
      { toolCalls: [fetchCall('b')] },
      { content: 'B' },
      keep,
      { content: 'done' },
    ];
    const requests = async (maxParallelSteps: number) => {
      const model = new ScriptedModel(script());
      await runPipeline(
        planExecuteReplanPipeline({ maxParallelSteps }),
        { task: 't' },
        { deps: { model, tools: fetchTools([]) } },
      );
      model.assertConsumed();
      return model.requests.map((request) => ({ purpose: request.purpose, messages: request.messages }));
    };
    expect(await requests(3)).toEqual(await requests(1));
  });

  it('a step that fails blocks its dependants; the replanner rewrites only those; the failure it answered no longer counts against the goal', async () => {
    const model = new ScriptedModel([
      graph(
        { id: 'a', description: 'Fetch a', dependsOn: [] },
        { id: 'b', description: 'Fetch b', dependsOn: [] },
        { id: 'c', description: 'Use a', dependsOn: ['a'] },
      ),
      // a asks for a new plan through the replan tool; b finishes.
      { toolCalls: [{ name: 'replan', arguments: '{"reason":"a cannot be fetched"}' }] },
      { content: 'B' },
      {
        content: JSON.stringify({
          need_replan: true,
          reason: 'use b instead',
          new_steps: [{ id: 'c2', description: 'Use b', dependsOn: ['b'] }],
        }),
      },
      { content: 'C2' },
      keep,
      { content: 'partial answer' },
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 't' },
      { deps: { model, tools: fetchTools([]), onEvent: (event) => events.push(event) } },
    );
    model.assertConsumed();
    // The model was offered the replan tool, and the replanner saw c blocked.
    expect(model.requests[1]!.tools!.map((tool) => tool.name)).toContain('replan');
    expect(model.requests[3]!.messages[1]!.content).toContain('c [blocked]: Use a');
    expect(model.requests[3]!.messages[1]!.content).toContain(
      'The executor asked for a new plan: a: a cannot be fetched',
    );
    const decision = events.find((event) => event.type === 'replan_decision')!.data;
    expect(decision).toMatchObject({
      ended: ['a', 'b'],
      applied: true,
      reason: expect.stringContaining('asked for by the model'),
    });
    expect(result.state.plan!.steps.map((step) => [step.id, step.status])).toEqual([
      ['a', 'replaced'],
      ['b', 'completed'],
      ['c2', 'completed'],
    ]);
    expect(result).toMatchObject({ status: 'completed', answer: 'partial answer', partial: false });
    expect(events.some((event) => event.type === 'goal_not_met')).toBe(false);
  });

  it('six-components "Rule based evaluation" (a run is not completed when its steps failed): a step whose dependency failed and that nobody rewrites stays blocked, and the run stops goal_not_met', async () => {
    const model = new ScriptedModel([
      { content: '["Fetch a", "Use a"]' },
      { toolCalls: [{ name: 'replan', arguments: '{"reason":"no a"}' }] },
      keep,
      { content: 'nothing' },
    ]);
    const result = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 't' },
      { deps: { model, tools: fetchTools([]) } },
    );
    model.assertConsumed();
    expect(result.state.plan!.steps.map((step) => step.status)).toEqual(['failed', 'blocked']);
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'goal_not_met', message: expect.stringContaining('blocked: s2') },
    });
  });
});
