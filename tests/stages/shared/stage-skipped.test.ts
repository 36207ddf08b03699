// skipStage: the warning event of a stage whose optional dependency is missing (the eight-stage document's "Anything
// not injected is simply skipped"), emitted under the skipping stage's name.
import { describe, expect, it } from 'vitest';
import { skipStage } from '../../../stages/shared/stage-skipped.js';
import { makeCtx } from '../../support/helpers.js';

describe('skipStage', () => {
  it('emits stage_skipped with the missing port, what the run goes without and the fix', () => {
    const ctx = makeCtx({ zone: 'finalize' });
    skipStage(ctx, 'deps.sessions', 'this turn is not kept in its session', 'pass deps.sessions');
    expect(ctx.events).toMatchObject([
      {
        type: 'stage_skipped',
        zone: 'finalize',
        data: { missing: 'deps.sessions', effect: 'this turn is not kept in its session', fix: 'pass deps.sessions' },
      },
    ]);
  });
});
