// The observe slot's type file: importing it (types only) gives RunState its `observe` slot.
import { describe, expectTypeOf, it } from 'vitest';
import type { RunState } from '../../../src/engine/state.js';
import type { ObservedResult, ObserveSlot } from '../../../stages/loop/observe-slot.js';

describe('the observe slot', () => {
  it('is RunState.observe: the step and its latest results', () => {
    expectTypeOf<RunState['observe']>().toEqualTypeOf<ObserveSlot | undefined>();
    expectTypeOf<ObserveSlot['results']>().toEqualTypeOf<ObservedResult[]>();
  });
});
