// The limits slot's type file: importing it (types only) gives RunState its `limits` slot and the `limits` event.
import { describe, expectTypeOf, it } from 'vitest';
import type { RunEvents } from '../../../src/engine/stage.js';
import type { RunState } from '../../../src/engine/state.js';
import type { LimitsInForce } from '../../../stages/guards/limits-slot.js';

describe('the limits slot', () => {
  it('is RunState.limits and the data of the limits event; null is a limit that is off', () => {
    expectTypeOf<RunState['limits']>().toEqualTypeOf<LimitsInForce | undefined>();
    expectTypeOf<RunEvents['limits']>().toEqualTypeOf<LimitsInForce>();
    expectTypeOf<LimitsInForce['maxTokens']>().toEqualTypeOf<number | null>();
  });
});
