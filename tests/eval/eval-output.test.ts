import { describe, expect, it } from 'vitest';
import { progressBar, progressLine } from '../../app/cli/eval-output.js';
import type { CaseRun } from '../../src/eval/types.js';

const run: CaseRun = {
  id: 'words',
  variant: 'react',
  repeat: 0,
  runId: 'r1',
  pass: true,
  score: 1,
  grades: [],
  answer: '42',
  status: 'completed',
  stopReason: 'completed',
  tokens: { input: 1, output: 1, total: 2 },
  costUsd: 0,
  latencyMs: 38.2,
  toolCalls: [],
};

describe('eval progress', () => {
  it('is a line per run off a terminal, and a bar that fills on one', () => {
    expect(progressLine(run, { done: 3, total: 8, passed: 2 })).toBe('[3/8] react words pass 38 ms · 2 passed');
    expect(progressLine({ ...run, pass: false, repeat: 1 }, { done: 3, total: 8, passed: 2 })).toBe(
      '[3/8] react words #2 FAIL 38 ms · 2 passed',
    );
    expect(progressBar(run, { done: 5, total: 10, passed: 5 }, 10)).toBe(
      '[#####-----] 5/10 · 5 passed · react words pass 38 ms',
    );
    expect(progressBar(run, { done: 10, total: 10, passed: 9 }, 10)).toMatch(/^\[##########\] 10\/10/);
    // A case id with an escape sequence cannot move the cursor.
    expect(progressLine({ ...run, id: 'a\u001b[2Jb' }, { done: 1, total: 1, passed: 1 })).not.toContain('\u001b');
  });
});
