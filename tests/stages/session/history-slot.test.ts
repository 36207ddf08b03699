// The history slot's type file: importing it (types only) gives RunState its `history` slot.
import { describe, expectTypeOf, it } from 'vitest';
import type { RunState } from '../../../src/engine/state.js';
import type { HistorySlot } from '../../../stages/session/history-slot.js';

describe('the history slot', () => {
  it('is RunState.history', () => {
    expectTypeOf<RunState['history']>().toEqualTypeOf<HistorySlot | undefined>();
    expectTypeOf<HistorySlot>().toHaveProperty('summary');
  });
});
