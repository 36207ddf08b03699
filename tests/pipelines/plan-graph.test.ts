// Plan steps as a graph: ready steps side by side, blocking, the replan tool, honest goals, durable branches.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { applyGuards } from '../../pipelines/guards.js';
import { resumeRun, runPipeline as recordedRun } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { StoredEntry } from '../../src/store/types.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';

const graph = (...steps: Array<{ id: string; description: string; dependsOn: string[]; priority?: number }>) => ({
  content: JSON.stringify({ goal: 'the task', steps }),
});
const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };
const fetchCall = (key: string) => ({ name: 'fetch', arguments: JSON.stringify({ key }) });

/** A `fetch` tool that logs each execution; keys in `together` wait (bounded) until all of them have started. */
function fetchTools(
  log: string[],
  options: { together?: string[]; hang?: string; spans?: Map<string, [number, number]> } = {},
) {
  const started = new Set<string>();
  let release: () => void = () => undefined;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  const fetch = defineTool({
    name: 'fetch',
    description: 'Fetches the value stored under a key.',
    parameters: z.object({ key: z.string() }),
    async execute({ key }) {
      log.push(key);
      const start = performance.now();
      if (key === options.hang) await new Promise(() => {});
      if (options.together?.includes(key)) {
        started.add(key);
        if (options.together.every((name) => started.has(name))) release();
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<never>(
          (_resolve, reject) =>
            (timer = setTimeout(() => reject(new Error(`${key}: the other steps never started alongside`)), 20_000)),
        );
        await Promise.race([allStarted, bound]).finally(() => clearTimeout(timer));
      }
      options.spans?.set(key, [start, performance.now()]);
      return `value of ${key}`;
    },
  });
  return new ToolRegistry([fetch], { defaultTimeoutMs: 30_000 });
}

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

  it('a step that fails blocks its dependants; the replanner rewrites only those; a failed step leaves the goal not met', async () => {
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
      ['a', 'failed'],
      ['b', 'completed'],
      ['c2', 'completed'],
    ]);
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'goal_not_met', stage: 'replan', message: expect.stringContaining('failed: a') },
    });
    expect(events.find((event) => event.type === 'goal_not_met')!.data).toEqual({ failed: ['a'], blocked: [] });
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

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not reached within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("steps side by side keep the run's guarantees", () => {
  const two = () =>
    graph({ id: 'a', description: 'Fetch a', dependsOn: [] }, { id: 'b', description: 'Fetch b', dependsOn: [] });
  const used = { inputTokens: 90, outputTokens: 10, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

  it("a token budget counts every step's calls and stops all of them", async () => {
    const model = new ScriptedModel([
      two(),
      { toolCalls: [fetchCall('a')], usage: used },
      { toolCalls: [fetchCall('b')], usage: used },
      // Over the budget now: each step gets its last tool-less turn, then the run stops.
      { content: 'A', usage: used },
      { content: 'B', usage: used },
    ]);
    const pipeline = applyGuards(planExecuteReplanPipeline(), { maxTokens: 150 });
    const result = await runPipeline(pipeline, { task: 't' }, { deps: { model, tools: fetchTools([]) } });
    model.assertConsumed();
    expect(result.stopReason).toMatchObject({
      kind: 'budget_tokens',
      message: expect.stringContaining('ended in its final tool-less turn'),
    });
    expect(result.usage.inputTokens + result.usage.outputTokens).toBeGreaterThanOrEqual(200);
    // The budget's forced tool-less turn went to the first step, and no step made another call after that round.
    expect(
      model.requests.filter((request) => request.purpose === 'think').map((request) => request.tools === undefined),
    ).toEqual([false, false, true, false]);
    expect(result.state.plan!.steps.map((step) => step.status)).toEqual(['completed', 'completed']);
  });

  it('the repeated-call guard counts per step: the same call in two steps side by side is not a loop', async () => {
    const model = new ScriptedModel([
      two(),
      { toolCalls: [fetchCall('x')] },
      { toolCalls: [fetchCall('x')] },
      { content: 'A' },
      { content: 'B' },
      keep,
    ]);
    const log: string[] = [];
    const events: RunEvent[] = [];
    const result = await runPipeline(
      applyGuards(planExecuteReplanPipeline(), { loopLimit: 2 }),
      { task: 't' },
      { deps: { model, tools: fetchTools(log), onEvent: (event) => events.push(event) } },
    );
    model.assertConsumed();
    expect(result.status).toBe('completed');
    expect(log).toEqual(['x', 'x']);
    expect(
      events
        .filter((event) => event.type === 'tool_result')
        .map((event) => [event.step, (event.data as { ok: boolean }).ok]),
    ).toEqual([
      ['a', true],
      ['b', true],
    ]);
  });

  it("a cancellation reaches every running step's call", async () => {
    const log: string[] = [];
    const controller = new AbortController();
    const hanging = defineTool({
      name: 'fetch',
      description: 'Never answers.',
      parameters: z.object({ key: z.string() }),
      execute: ({ key }, context) => {
        log.push(key);
        if (log.length === 2) controller.abort(new Error('the user pressed Ctrl-C'));
        return new Promise<string>((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error(`${key} aborted`))),
        );
      },
    });
    const model = new ScriptedModel([
      two(),
      { toolCalls: [fetchCall('a')] },
      { toolCalls: [fetchCall('b')] },
      { content: 'partial' },
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 't' },
      {
        signal: controller.signal,
        deps: { model, tools: new ToolRegistry([hanging]), onEvent: (event) => events.push(event) },
      },
    );
    expect(result.status).toBe('cancelled');
    expect(log.sort()).toEqual(['a', 'b']);
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => [event.step, (event.data as { ok: boolean }).ok])).toEqual([
      ['a', false],
      ['b', false],
    ]);
    // Finalize ran once.
    expect(
      events.filter(
        (event) => event.type === 'stage_started' && event.zone === 'finalize' && event.stage === 'summarize',
      ),
    ).toHaveLength(1);
  });
});
