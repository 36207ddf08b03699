// evaluate() over a loopback model server: two variants that differ only in whether the calculator is offered.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { evaluate, type EvalVariant } from '../../src/eval/evaluate.js';
import { toolCalled } from '../../src/eval/graders/index.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { reactPipeline } from '../../pipelines/react.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testCalculator } from '../support/stage-tools.js';
import { arithmeticCases, serveArithmetic } from './arithmetic-server.js';

const loopback = useLoopbackServer();

function variants(): EvalVariant[] {
  const model = loopback.model();
  return [
    {
      name: 'tools',
      pipeline: reactPipeline(),
      deps: { model, tools: new ToolRegistry([testCalculator]) },
      cost: (usage) => usage.inputTokens * 1e-6,
    },
    { name: 'no-tools', pipeline: reactPipeline(), deps: { model } },
  ];
}

describe('evaluate', () => {
  it('gives the pass rates the tool makes: every case with it, only the additions without', async () => {
    serveArithmetic(loopback.server);
    const store = memoryStore();
    const seen: string[] = [];
    const result = await evaluate({
      dataset: arithmeticCases,
      variants: variants(),
      concurrency: 3,
      store,
      evalId: 'eval-test',
      onRun: (run, progress) => void seen.push(`${progress.done}/${progress.total} ${run.variant}`),
    });
    expect(result.complete).toBe(true);
    expect(result.results).toHaveLength(8);
    const summary = Object.fromEntries(result.summary.map((entry) => [entry.variant, entry]));
    expect(summary.tools!.passRate).toBe(1);
    expect(summary['no-tools']!.passRate).toBe(0.5);
    expect(summary['no-tools']!.meanScore).toBe(0.5);
    expect(summary.tools!.stopReasons).toEqual({ completed: 4 });
    expect(summary.tools!.tokens.total).toBe(4 * 2 * 60);
    expect(summary.tools!.costUsd).toBeCloseTo(4 * 2 * 50e-6);
    expect(summary.tools!.latencyMs.p95).toBeGreaterThanOrEqual(summary.tools!.latencyMs.p50);
    expect(result.disagreements.map((entry) => entry.id)).toEqual(['multiply', 'divide']);
    expect(result.disagreements[0]!.pass).toEqual({ tools: true, 'no-tools': false });
    const failed = result.results.find((entry) => entry.id === 'multiply' && entry.variant === 'no-tools')!;
    expect(failed.runs[0]!.grades[0]!.reason).toMatch(/the answer has no 391 .*398/);
    expect(seen).toHaveLength(8);
    expect(seen.at(-1)).toMatch(/^8\/8 /);
    // Every run is recorded with the eval's id, case and variant.
    const recorded = await store.get(failed.runs[0]!.runId);
    expect(recorded?.options.eval).toEqual({ id: 'eval-test', case: 'multiply', variant: 'no-tools', repeat: 0 });
    expect((await store.list({ limit: 100 })).length).toBe(8);
  });

  it('adds the eval graders to every case and runs each case × variant `repeats` times', async () => {
    serveArithmetic(loopback.server);
    const result = await evaluate({
      dataset: arithmeticCases.slice(0, 2),
      variants: variants(),
      graders: [toolCalled('calculator')],
      repeats: 2,
      concurrency: 8,
    });
    expect(result.results.map((entry) => [entry.variant, entry.runs.length, entry.pass])).toEqual([
      ['tools', 2, true],
      ['no-tools', 2, false],
      ['tools', 2, true],
      ['no-tools', 2, false],
    ]);
    expect(result.results[1]!.score).toBe(0.5);
  });

  it('keeps the finished runs when stopped, and runs only the rest when given them back', async () => {
    serveArithmetic(loopback.server);
    const controller = new AbortController();
    const first = await evaluate({
      dataset: arithmeticCases,
      variants: variants(),
      concurrency: 1,
      signal: controller.signal,
      onRun: (_run, progress) => void (progress.done === 3 && controller.abort()),
    });
    expect(first.complete).toBe(false);
    const kept = first.results.flatMap((entry) => entry.runs);
    expect(kept).toHaveLength(3);
    const before = loopback.server.requests.length;
    const second = await evaluate({ dataset: arithmeticCases, variants: variants(), concurrency: 2, finished: kept });
    expect(second.complete).toBe(true);
    expect(second.results).toHaveLength(8);
    // 5 runs left: add-large without tools (1 request), multiply and divide with tools (2 each) and without (1 each).
    expect(loopback.server.requests.length - before).toBe(7);
  });

  it('grades the typed output of a pipeline with an output schema', async () => {
    loopback.server.replyWith({ content: '{"answer": 42, "unit": "none"}', times: 5 });
    const pipeline = reactPipeline({ outputSchema: z.object({ answer: z.number(), unit: z.string() }) });
    const result = await evaluate({
      dataset: [
        {
          id: 'typed',
          task: 'What is 6 * 7? Answer as JSON.',
          graders: [
            { type: 'json-subset', value: { answer: 42 } },
            { type: 'json-schema', schema: { type: 'object', required: ['answer', 'unit'] } },
          ],
        },
      ],
      variants: [{ name: 'typed', pipeline, deps: { model: loopback.model() } }],
    });
    expect(result.results[0]!.runs[0]!.grades.map((grade) => [grade.grader, grade.pass])).toEqual([
      ['json-subset', true],
      ['json-schema', true],
    ]);
  });

  it('refuses options that make no sense before any run', async () => {
    await expect(evaluate({ dataset: arithmeticCases, variants: [] })).rejects.toThrow(
      'evaluate needs at least one variant',
    );
    await expect(evaluate({ dataset: arithmeticCases, variants: [...variants(), variants()[0]!] })).rejects.toThrow(
      'variant "tools" is given twice',
    );
    await expect(evaluate({ dataset: arithmeticCases, variants: variants(), concurrency: 0 })).rejects.toThrow(
      'concurrency must be a whole number >= 1, got 0',
    );
    expect(loopback.server.requests).toHaveLength(0);
  });
});
