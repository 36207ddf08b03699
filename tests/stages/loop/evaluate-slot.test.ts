// The evaluate slot's type file: importing it (types only) gives RunState its `evaluate` slot.
import { describe, expectTypeOf, it } from 'vitest';
import type { RunState } from '../../../src/engine/state.js';
import type { EvaluateSlot, Verdict } from '../../../stages/loop/evaluate-slot.js';

describe('the evaluate slot', () => {
  it('is RunState.evaluate, with the latest verdict', () => {
    expectTypeOf<RunState['evaluate']>().toEqualTypeOf<EvaluateSlot | undefined>();
    expectTypeOf<EvaluateSlot['verdict']>().toEqualTypeOf<Verdict>();
  });
});
