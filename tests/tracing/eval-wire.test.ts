// `stageloop eval --trace otlp` at the OTLP/HTTP wire, JSON and protobuf: every run of the eval is traced, and each
// graded run's verdicts arrive as `gen_ai.evaluation.result` events of an `evaluate {case}` span whose parent is that
// run's root span (same trace), as a receiver on 127.0.0.1 decodes them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { runCli } from '../support/run-cli.js';

interface EvalJson {
  results: Array<{ id: string; pass: boolean; runs: Array<{ runId: string; grades: Array<{ grader: string }> }> }>;
}

// Each eval starts the CLI, the calculator's worker and the SDK: seconds, more on a loaded machine.
describe.each(['http/json', 'http/protobuf'] as const)(
  'stageloop eval --trace otlp over %s',
  { timeout: 120_000 },
  (protocol) => {
    let receiver: OtlpReceiver;
    let home: string;
    beforeEach(async () => {
      receiver = await startOtlpReceiver();
      home = mkdtempSync(join(tmpdir(), 'stageloop-eval-trace-'));
    });
    afterEach(async () => {
      await receiver.close();
      rmSync(home, { recursive: true, force: true });
    });

    it("links each case's gen_ai.evaluation.result events to the graded run's trace", async () => {
      const dataset = join(home, 'cases.jsonl');
      writeFileSync(
        dataset,
        [
          { id: 'sum', task: 'What is 17 * 23 + 4?', expected: 395 },
          { id: 'wrong', task: 'What is 2 + 2?', expected: 5 },
        ]
          .map((line) => JSON.stringify(line))
          .join('\n'),
      );
      const child = await runCli(
        ['eval', dataset, '--offline', '--quiet', '--json', '--concurrency', '1', '--trace', 'otlp'],
        { STAGELOOP_HOME: home, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol },
      );
      expect(child.code, child.stderr).toBe(1); // one case fails on purpose
      const wire = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
      expect(receiver.requests.some((request) => request.path === '/v1/traces')).toBe(true);
      expect(receiver.requests.every((request) => request.contentType?.startsWith(wire))).toBe(true);
      const result = JSON.parse(child.stdout) as EvalJson;
      expect(result.results.map((entry) => [entry.id, entry.pass])).toEqual([
        ['sum', true],
        ['wrong', false],
      ]);
      const spans = receiver.spans;
      for (const entry of result.results) {
        const run = entry.runs[0]!;
        const root = spans.find(
          (span) => span.parentSpanId === undefined && span.attributes['stageloop.run.id'] === run.runId,
        );
        expect(root?.name).toBe('invoke_agent react');
        const evaluation = spans.find((span) => span.name === `evaluate ${entry.id}`)!;
        expect(evaluation.traceId).toBe(root!.traceId);
        expect(evaluation.parentSpanId).toBe(root!.spanId);
        expect(evaluation.attributes).toMatchObject({
          'stageloop.run.id': run.runId,
          'stageloop.eval.variant': 'default',
        });
        expect(evaluation.events.map((event) => event.name)).toEqual(run.grades.map(() => 'gen_ai.evaluation.result'));
        expect(evaluation.events.map((event) => event.attributes['gen_ai.evaluation.name'])).toEqual(
          run.grades.map((grade) => grade.grader),
        );
        for (const event of evaluation.events)
          expect(event.attributes).toMatchObject({
            'gen_ai.evaluation.score.label': entry.pass ? 'pass' : 'fail',
            'gen_ai.evaluation.score.value': expect.any(Number),
            'gen_ai.evaluation.explanation': expect.any(String),
            'gen_ai.response.id': run.runId,
          });
      }
    });

    it('names a --trace value that is neither otlp nor console in one line', async () => {
      const child = await runCli(['eval', 'builtin:arithmetic', '--offline', '--trace', 'jaeger'], {
        STAGELOOP_HOME: home,
      });
      expect(child.code).toBe(2);
      expect(child.stderr).toBe('stageloop: --trace must be "otlp" or "console", got "jaeger"\n');
    });
  },
);
