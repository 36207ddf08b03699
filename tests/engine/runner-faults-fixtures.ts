// The runner-faults tests' shared fixture: a finalize stage that counts its runs in a slot of its own.
import type { Stage } from '../../src/engine/stage.js';

declare module '../../src/engine/state.js' {
  interface StageSlots {
    finalized: number;
  }
}

export const finalizeOnce: Stage = {
  name: 'summarize',
  execute: (state) => void (state.finalized = (state.finalized ?? 0) + 1),
};
