// `gen_ai.evaluation.result` records (#43): an eval's verdicts on a traced run land in that run's trace, as events of
// an `evaluate {case}` span under the graded run's root span: grader name, score value and label, explanation,
// response id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { recordEvaluation } from '../../src/tracing/evaluation-records.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { enableAsyncContext, makeTracing } from './span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

describe('evaluation records', () => {
  it("each graded run's verdicts are gen_ai.evaluation.result events in that run's trace", async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([{ content: 'It is 4.' }, { content: 'It is 7.' }]);
    const result = await evaluate({
      dataset: [
        { id: 'sum', task: 'What is 2 + 2?', expected: '4' },
        { id: 'other', task: 'What is 3 + 3?', expected: '6' },
      ],
      variants: [
        {
          name: 'scripted',
          pipeline: reactPipeline({ guards: false }),
          deps: instrumentDeps({ model }, { tracer: tracing.tracer }),
        },
      ],
      concurrency: 1,
      onRun: (run) => recordEvaluation(run, tracing.tracer),
    });
    expect(result.results.map((entry) => [entry.id, entry.pass])).toEqual([
      ['sum', true],
      ['other', false],
    ]);
    const spans = tracing.spans();
    for (const entry of result.results) {
      const run = entry.runs[0]!;
      const root = spans.find(
        (span) => span.name === 'invoke_agent react' && span.attributes['stageloop.run.id'] === run.runId,
      )!;
      const evaluation = spans.find((span) => span.name === `evaluate ${entry.id}`)!;
      expect(evaluation.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(evaluation.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(evaluation.attributes).toMatchObject({
        'stageloop.run.id': run.runId,
        'stageloop.eval.variant': 'scripted',
      });
      expect(evaluation.events.map((event) => [event.name, event.attributes])).toEqual(
        run.grades.map((grade) => [
          'gen_ai.evaluation.result',
          {
            'gen_ai.evaluation.name': grade.grader,
            'gen_ai.evaluation.score.value': grade.score,
            'gen_ai.evaluation.score.label': entry.pass ? 'pass' : 'fail',
            'gen_ai.evaluation.explanation': grade.reason,
            'gen_ai.response.id': run.runId,
          },
        ]),
      );
      expect(run.grades.length).toBeGreaterThan(0);
    }
  });
});
