// A grade subject with every field filled, for grader tests: the run's facts a grader reads.
import type { GradeSubject } from '../../src/eval/graders/types.js';

export function subject(fields: Partial<GradeSubject> = {}): GradeSubject {
  return {
    case: { id: 'case-1', task: 'What is 17 * 23?' },
    answer: '17 * 23 = 391',
    toolCalls: [],
    status: 'completed',
    stopReason: { kind: 'completed', stage: 'think', message: 'the model gave its final answer' },
    tokens: { input: 100, output: 20, total: 120 },
    latencyMs: 50,
    ...fields,
  };
}
