// Deeper plans: a plan step may hold its own sub-plan (`steps` inside a step), run by the same graph machinery,
// nested at most three deep, the parent done when its sub-plan is done (observe-plan-act "Task Decomposition Tree").
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { resumeRun, runPipeline as recordedRun } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { fetchCall, fetchTools, keep, runPlan, waitFor } from './plan-graph-fixtures.js';

const reply = (value: unknown) => ({ content: JSON.stringify(value) });
const step = (id: string, dependsOn: string[] = [], steps?: unknown[]) => ({
  id,
  description: `Fetch ${id}`,
  dependsOn,
  ...(steps === undefined ? {} : { steps }),
});
const statuses = (steps: Array<{ id: string; status: string; parent?: string }>) =>
  steps.map((known) => [known.id, known.status, known.parent ?? null]);

/** a, then b as a sub-plan (x, then y after x), then c after b; one step at a time. */
const tree = (): ScriptedStep[] => [
  reply({ goal: 'g', steps: [step('a'), step('b', ['a'], [step('x'), step('y', ['x'])]), step('c', ['b'])] }),
  { toolCalls: [fetchCall('a')] },
  { content: 'A' },
  keep,
  { toolCalls: [fetchCall('x')] },
  { content: 'X' },
  keep,
  { content: 'Y' },
  // b.y ended and with it b's sub-plan: one replanner call hears of both.
  keep,
  { content: 'C' },
  keep,
  { content: 'The answer is C.' },
];

describe('sub-plans (observe-plan-act "Hierarchical processing via Task Decomposition")', () => {
  it('observe-plan-act "Task Decomposition Tree": a step with its own steps runs them as a graph, ends when they end, its result their results combined', async () => {
    const { result, events, model } = await runPlan(tree(), { maxParallelSteps: 1 });
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is C.' });
    const plan = result.state.plan!;
    expect(statuses(plan.steps)).toEqual([
      ['a', 'completed', null],
      ['b', 'completed', null],
      ['b.x', 'completed', 'b'],
      ['b.y', 'completed', 'b'],
      ['c', 'completed', null],
    ]);
    // The sub-step's dependency on its sibling is qualified; the parent's result is its sub-steps' results, by id.
    expect(plan.steps[3]!.dependsOn).toEqual(['b.x']);
    expect(plan.steps[1]!.result).toBe('b.x: X\nb.y: Y');
    // c depends on b: its brief has b's sub-steps' results (and a's, which b needed).
    const briefOfC = String(model.requests.at(-3)!.messages.at(-1)!.content);
    expect(briefOfC).toMatch(/Current step \(5 of 5\): Fetch c/);
    expect(briefOfC).toContain('Result: X');
    expect(briefOfC).toContain('Result: Y');
    // A sub-step's brief names its parent's dependency results too (b depends on a).
    const briefOfX = String(model.requests[4]!.messages.at(-1)!.content);
    expect(briefOfX).toMatch(/Current step \(3 of 5\): Fetch x/);
    expect(briefOfX).toContain('Result: A');
    // Events for nested steps carry the parent's id; the run's own steps carry none.
    const started = events.filter((event) => event.type === 'step_started').map((event) => event.data);
    expect(started.map((data) => [data.id, data.parent ?? null])).toEqual([
      ['a', null],
      ['b', null],
      ['b.x', 'b'],
      ['b.y', 'b'],
      ['c', null],
    ]);
    const finished = events.filter((event) => event.type === 'step_finished').map((event) => event.data);
    expect(finished.map((data) => [data.id, data.outcome, data.parent ?? null])).toEqual([
      ['a', 'completed', null],
      ['b.x', 'completed', 'b'],
      ['b.y', 'completed', 'b'],
      ['b', 'completed', null],
      ['c', 'completed', null],
    ]);
    const created = events.find((event) => event.type === 'plan_created')!.data;
    expect(created.steps.map((view) => view.parent ?? null)).toEqual([null, null, 'b', 'b', null]);
  });

  it('observe-plan-act "Dependency Graph and Subtask Breakdown": sub-steps that need nothing from each other run side by side', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      reply({ goal: 'g', steps: [step('b', [], [step('x'), step('y')])] }),
      { toolCalls: [fetchCall('x')] },
      { toolCalls: [fetchCall('y')] },
      { content: 'X' },
      { content: 'Y' },
      keep,
      { content: 'done' },
    ]);
    const events: RunEvent[] = [];
    const { runPipeline } = await import('../../src/engine/runner.js');
    const result = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 't' },
      { deps: { model, tools: fetchTools(log, { together: ['x', 'y'] }), onEvent: (event) => events.push(event) } },
    );
    model.assertConsumed();
    expect(result.status).toBe('completed');
    const running = events.flatMap((event) => (event.type === 'plan_updated' ? [event.data.running] : []));
    expect(running).toContainEqual(['b.x', 'b.y']);
    // Each sub-step's calls carry its own step id, as a run-level step's do.
    expect(events.filter((event) => event.type === 'tool_call').map((event) => event.step)).toEqual(['b.x', 'b.y']);
  });

  it('observe-plan-act "plans nest at most 3 deep": a fourth level is refused with a reason the planner reads in its repair turn', async () => {
    const deep = step('a', [], [step('b', [], [step('c', [], [step('d')])])]);
    const { result, events, model } = await runPlan(
      [
        reply({ goal: 'g', steps: [deep] }),
        reply({ goal: 'g', steps: [step('a', [], [step('b', [], [step('c')])])] }),
        { content: 'C' },
        keep,
        { content: 'done' },
      ],
      { maxParallelSteps: 1 },
    );
    const repair = events.find((event) => event.type === 'plan_repair')!.data;
    expect(repair.problem).toContain('step "a.b.c" has its own "steps" at plan depth 4: plans nest at most 3 deep');
    expect(String(model.requests[1]!.messages.at(-1)!.content)).toContain('plans nest at most 3 deep');
    expect(result.status).toBe('completed');
    expect(statuses(result.state.plan!.steps)).toEqual([
      ['a', 'completed', null],
      ['a.b', 'completed', 'a'],
      ['a.b.c', 'completed', 'a.b'],
    ]);
    // The planner is told it may nest, and how deep.
    expect(String(model.requests[0]!.messages[0]!.content)).toMatch(/its own "steps" \(a sub-plan.*at most 3 levels/);
  });

  it('six-components "honest goals" inside a sub-plan: a failed sub-step the replanner replaced inside its sub-plan does not count; the run completes', async () => {
    const { result, events, model } = await runPlan(
      [
        reply({ goal: 'g', steps: [step('b', [], [step('x'), step('y')])] }),
        { toolCalls: [{ name: 'replan', arguments: JSON.stringify({ reason: 'x is down' }) }] },
        reply({
          need_replan: true,
          reason: 'fetch x from the mirror',
          new_steps: [{ id: 'x2', description: 'Fetch x from the mirror', dependsOn: [] }, step('y')],
        }),
        { content: 'X2' },
        keep,
        { content: 'Y' },
        keep,
        { content: 'done' },
      ],
      { maxParallelSteps: 1 },
    );
    // The replanner was asked about b's sub-plan, not the run's.
    expect(String(model.requests[2]!.messages.at(-1)!.content)).toContain('inside the sub-plan of step b');
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(statuses(result.state.plan!.steps)).toEqual([
      ['b', 'completed', null],
      ['b.x', 'replaced', 'b'],
      ['b.x2', 'completed', 'b'],
      ['b.y', 'completed', 'b'],
    ]);
    expect(result.state.plan!.steps[0]!.result).toBe('b.x2: X2\nb.y: Y');
    expect(events.some((event) => event.type === 'goal_not_met')).toBe(false);
  });

  it('six-components "honest goals": a sub-plan with nothing left to run fails its parent, which the replanner answers one level up', async () => {
    const { result, model } = await runPlan(
      [
        reply({ goal: 'g', steps: [step('b', [], [step('x'), step('y', ['x'])]), step('c', ['b'])] }),
        { toolCalls: [{ name: 'replan', arguments: JSON.stringify({ reason: 'x is down' }) }] },
        reply({ need_replan: true, reason: 'another way', new_steps: [step('d'), step('c', ['d'])] }),
        { content: 'D' },
        keep,
        { content: 'C' },
        keep,
        { content: 'done' },
      ],
      { maxParallelSteps: 1 },
    );
    expect(String(model.requests[2]!.messages.at(-1)!.content)).not.toContain('inside the sub-plan');
    expect(result.status).toBe('completed');
    expect(statuses(result.state.plan!.steps)).toEqual([
      ['b', 'replaced', null],
      ['b.x', 'replaced', 'b'],
      ['b.y', 'blocked', 'b'],
      ['d', 'completed', null],
      ['c', 'completed', null],
    ]);
  });

  it('a sub-plan that fails and is not replanned stops the run goal_not_met, naming the parent step', async () => {
    const { result } = await runPlan(
      [
        reply({ goal: 'g', steps: [step('b', [], [step('x')])] }),
        { toolCalls: [{ name: 'replan', arguments: JSON.stringify({ reason: 'x is down' }) }] },
        keep,
        { content: 'partial' },
      ],
      { maxParallelSteps: 1 },
    );
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'goal_not_met', message: expect.stringContaining('(failed: b)') },
    });
  });

  it('durable: a run stopped mid sub-plan resumes without running its done sub-step again; replay is identical', async () => {
    const store = memoryStore();
    const log: string[] = [];
    void recordedRun(
      planExecuteReplanPipeline({ maxParallelSteps: 1 }),
      { task: 'fetch' },
      {
        store,
        deps: {
          model: new ScriptedModel(tree()),
          tools: fetchTools(log, { hang: 'x' }),
          ids: { newId: () => 'run-s' },
        },
      },
    );
    // Stopped inside b's sub-plan: a is done, b.x's call hangs and is never recorded.
    await waitFor(async () => log.includes('x'));
    // The calls recorded before the stop (up to b.x's think) are served from the journal, not asked again.
    const model = new ScriptedModel(tree().slice(5));
    const result = await resumeRun(store, 'run-s', {
      pipeline: planExecuteReplanPipeline({ maxParallelSteps: 1 }),
      deps: { model, tools: fetchTools(log) },
      takeOver: true,
    });
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is C.' });
    expect(log.filter((key) => key === 'a')).toHaveLength(1);
    // a is not fetched again; b.x's cut-off read runs once more.
    expect(log).toEqual(['a', 'x', 'x']);
    const replay = await replayRun(store, 'run-s', { pipeline: planExecuteReplanPipeline({ maxParallelSteps: 1 }) });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
  });
});
