import { describe, expect, it } from 'vitest';
import { compareWithBaseline } from '../../src/eval/baseline.js';
import { evalResult } from '../../src/eval/summary.js';
import type { CaseRun } from '../../src/eval/types.js';

const run = (id: string, pass: boolean, variant = 'v'): CaseRun => ({
  id,
  variant,
  repeat: 0,
  runId: `${id}-${variant}`,
  pass,
  score: pass ? 1 : 0,
  grades: [],
  answer: '',
  status: 'completed',
  stopReason: 'completed',
  tokens: { input: 1, output: 1, total: 2 },
  costUsd: 0,
  latencyMs: 1,
  toolCalls: [],
});
const result = (runs: CaseRun[]) =>
  evalResult('eval-x', 'd', [...new Set(runs.map((entry) => entry.id))], ['v'], runs, true);

describe('compareWithBaseline', () => {
  const baseline = result([run('a', true), run('b', true), run('c', false), run('d', true)]);

  it('threshold 0: a case that passed and fails now is a regression; one that failed before is known', () => {
    const comparison = compareWithBaseline(
      baseline,
      result([run('a', true), run('b', false), run('c', false), run('d', true)]),
      'base.json',
    );
    expect(comparison.regressions).toEqual([{ id: 'b', variant: 'v', kind: 'regressed' }]);
    expect(comparison.stillFailing).toEqual([{ id: 'c', variant: 'v' }]);
    expect(comparison.failed).toBe(true);
    expect(
      compareWithBaseline(
        baseline,
        result([run('a', true), run('b', true), run('c', false), run('d', true)]),
        'base.json',
      ).failed,
    ).toBe(false);
  });

  it('a new case that fails is a failure; a fixed one is noted', () => {
    const comparison = compareWithBaseline(
      baseline,
      result([run('a', true), run('b', true), run('c', true), run('d', true), run('e', false)]),
      'base.json',
    );
    expect(comparison.regressions).toEqual([{ id: 'e', variant: 'v', kind: 'new_failure' }]);
    expect(comparison.fixed).toEqual([{ id: 'c', variant: 'v' }]);
    expect(comparison.failed).toBe(true);
  });

  it('with a threshold, a variant fails only when its pass rate or score falls by more than it', () => {
    const now = result([run('a', true), run('b', false), run('c', false), run('d', true)]);
    expect(compareWithBaseline(baseline, now, 'base.json', 0.25).failed).toBe(false);
    expect(compareWithBaseline(baseline, now, 'base.json', 0.2).failed).toBe(true);
    expect(compareWithBaseline(baseline, now, 'base.json', 0.2).variants[0]).toMatchObject({
      variant: 'v',
      passRate: { before: 0.75, now: 0.5 },
      regressed: true,
    });
  });
});
