// The progress view's line for the limits in force: one label, in words (it printed "limits: limits: maxIterations: ...").
import { describe, expect, it } from 'vitest';
import { progressPrinter } from '../../app/cli/progress.js';
import type { RunEvent } from '../../src/engine/stage.js';

function printed(event: Pick<RunEvent, 'type' | 'data'> & { stage: string }): string {
  let text = '';
  const show = progressPrinter({ write: (piece: string) => ((text += piece), true) } as NodeJS.WritableStream);
  show({ runId: 'r', seq: 1, zone: 'setup', iteration: 0, at: 0, ...event } as RunEvent);
  return text;
}

describe('progress: the limits in force', () => {
  it('prints the defaults as one sentence with one label', () => {
    const text = printed({
      type: 'limits',
      stage: 'limits',
      data: {
        maxIterations: 10,
        maxTokens: 102400,
        maxCostUsd: null,
        timeoutSeconds: 600,
        loopLimit: 3,
        contextBudget: 102400,
      },
    });
    expect(text).toBe(
      '  limits in force: 10 iterations, 102400 tokens, no cost limit, 600 s, the 3rd identical failing call refused, each request pruned to 102400 tokens\n',
    );
  });

  it('says which limits are off', () => {
    const text = printed({
      type: 'limits',
      stage: 'limits',
      data: {
        maxIterations: 1,
        maxTokens: null,
        maxCostUsd: 0.5,
        timeoutSeconds: null,
        loopLimit: null,
        contextBudget: null,
      },
    });
    expect(text).toBe(
      '  limits in force: 1 iteration, no token limit, $0.5000, no time limit, no repeated-call guard, no pruning\n',
    );
  });

  it('an event named like its stage is not labelled twice', () => {
    const text = printed({
      type: 'custom_check' as RunEvent['type'],
      stage: 'custom_check',
      data: { ok: true },
    } as never);
    expect(text).toBe('  custom check: ok: true\n');
  });
});
