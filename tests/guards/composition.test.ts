// All four guards inserted into both built-in pipelines with insertBefore / insertAfter; no stage file is edited.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import { insertAfter, insertBefore, stageNames, type Pipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { budget, injectionGuard, loopGuard, prune } from '../../stages/guards/index.js';
import { testCalculator } from '../support/stage-tools.js';

function withAllGuards(pipeline: Pipeline): Pipeline {
  const budgetGuard = budget({ maxTokens: 100_000, maxCostUsd: 1, maxTimeMs: 30_000, maxIterations: 12 });
  const loop = loopGuard({ limit: 3 });
  const injection = injectionGuard();
  let guarded = insertBefore(pipeline, 'context', budgetGuard.start, injection.task);
  guarded = insertBefore(guarded, 'think', budgetGuard, prune({ budgetTokens: 4_000 }));
  guarded = insertBefore(guarded, 'act', loop);
  return insertAfter(guarded, 'act', loop.history, injection);
}

async function run(pipeline: Pipeline, task: string) {
  const events: RunEvent[] = [];
  const result = await runPipeline(
    withAllGuards(pipeline),
    { task },
    {
      deps: {
        model: new OfflineModel(),
        tools: new ToolRegistry([testCalculator]),
        onEvent: (event) => events.push(event),
      },
    },
  );
  return { result, events };
}

describe('the four guards composed into the built-in pipelines', () => {
  it('ReAct still answers 395, with every guard having run and recorded its slot', async () => {
    const { result, events } = await run(reactPipeline({ guards: false }), 'What is 17 * 23 + 4?');
    expect(stageNames(withAllGuards(reactPipeline({ guards: false })))).toEqual([
      'budget-start',
      'injection-guard-task',
      'context',
      'budget',
      'prune',
      'think',
      'loop-guard',
      'act',
      'loop-guard-history',
      'injection-guard',
      'observe',
      'evaluate',
      'summarize',
    ]);
    expect(result).toMatchObject({ status: 'completed', partial: false });
    expect(result.answer).toMatch(/\b395\b/);
    expect(result.state.budget?.spent.iterations).toBe(2);
    expect(result.state.budget?.spent.tokens).toBeGreaterThan(0);
    // Only failing calls are tracked: a run whose calls all succeed leaves no loop-guard slot.
    expect(result.state.loopGuard).toBeUndefined();
    expect(result.state.injectionGuard).toEqual({ screened: 2, detections: [] });
    // A request far under the budget is never counted with the tokenizer.
    expect(result.state.prune).toBeUndefined();
    expect(result.stages.filter((stage) => stage.calls === 0).map((stage) => stage.name)).toEqual([]);
    expect(
      events.some(
        (event) =>
          event.type.startsWith('budget_') || event.type === 'loop_refused' || event.type === 'injection_detected',
      ),
    ).toBe(false);
    expect(JSON.parse(JSON.stringify(result.state))).toEqual(result.state);
  });

  it('Plan-Execute-Replan still computes 77 over three steps with the guards in place', async () => {
    // One step at a time, the guards' slots are the run's own (side by side, each step has its own: docs/plans.md).
    const { result } = await run(
      planExecuteReplanPipeline({ maxParallelSteps: 1, guards: false }),
      'Compute 12*12, then add 10, then divide by 2',
    );
    expect(stageNames(withAllGuards(planExecuteReplanPipeline({ guards: false }))).slice(0, 4)).toEqual([
      'budget-start',
      'injection-guard-task',
      'context',
      'plan',
    ]);
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/The answer is 77\.$/);
    expect(result.state.loopGuard).toBeUndefined();
    expect(result.state.injectionGuard?.screened).toBe(4);
    expect(result.state.budget?.spent.costUsd).toBe(0);
  });
});
