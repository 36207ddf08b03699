// An eval's verdicts as `gen_ai.evaluation.result` records: one `evaluate {case}` span in the graded run's trace (a
// child of its root span when this process traced it), with one event per grader: its name, score value and label
// (pass or fail), and its reason as the explanation. Without a traced run the span starts a trace of its own.
import { context, trace, type Tracer } from '@opentelemetry/api';
import { EvaluationAttributes, StageloopAttributes } from './attributes.js';
import { runSpanContext } from './otel-tracer.js';
import { stageloopTracer } from './span-helpers.js';

/** One graded run as the eval reports it (src/eval's CaseRun has these fields). */
export interface GradedRun {
  id: string;
  variant: string;
  runId: string;
  grades: ReadonlyArray<{ grader: string; score: number; pass: boolean; reason: string }>;
}

export function recordEvaluation(run: GradedRun, tracer: Tracer = stageloopTracer()): void {
  const graded = runSpanContext(run.runId);
  const parent = graded === undefined ? context.active() : trace.setSpanContext(context.active(), graded);
  const span = tracer.startSpan(
    `evaluate ${run.id}`,
    { attributes: { [StageloopAttributes.runId]: run.runId, [StageloopAttributes.evalVariant]: run.variant } },
    parent,
  );
  for (const grade of run.grades)
    span.addEvent(EvaluationAttributes.event, {
      [EvaluationAttributes.name]: grade.grader,
      [EvaluationAttributes.scoreValue]: grade.score,
      [EvaluationAttributes.scoreLabel]: grade.pass ? 'pass' : 'fail',
      [EvaluationAttributes.explanation]: grade.reason,
      [EvaluationAttributes.responseId]: run.runId,
    });
  span.end();
}
