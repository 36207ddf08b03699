// What the runner tests share: a stage that leaves its name in state.trail, the trail, and the event and slot types
// the tests add.
import type { Signal } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    thought: { words: number };
    loose: { aborted: boolean };
  }
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    trail: string[];
  }
}

/** A stage that appends its name to state.trail and then does what `behave` says. */
export function step(
  name: string,
  behave: (state: RunState) => Signal | void | Promise<Signal | void> = () => undefined,
): Stage {
  return {
    name,
    async execute(state) {
      (state.trail ??= []).push(state.iteration > 0 ? `${name}#${state.iteration}` : name);
      return behave(state);
    },
  };
}

export const trail = (state: RunState) => state.trail ?? [];
