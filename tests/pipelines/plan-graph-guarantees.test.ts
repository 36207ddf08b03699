// Plan steps side by side keep the run's guarantees: one token budget, the repeated-call guard per step, and a
// cancellation that reaches every running step; apart from plan-graph.test.ts to keep each file short.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { applyGuards } from '../../pipelines/guards.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { fetchCall, fetchTools, graph, keep } from './plan-graph-fixtures.js';

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
