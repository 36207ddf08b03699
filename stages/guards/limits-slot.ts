// The limits slot's type and event (a leaf: act and the CLI read the limits in force).
import type {} from '../../src/engine/stage.js';
import type {} from '../../src/engine/state.js';
import type { LimitSetting } from '../../src/engine/guard-settings.js';

/**
 * The limits a run has, resolved for its model: the guard settings that are limits (`limitSettings`), null for one
 * that is off. Reasoning turns are the budget's, else the runner's cap. Shown in --json and on the root span.
 */
export type LimitsInForce = { maxIterations: number } & {
  [Setting in Exclude<LimitSetting, 'maxIterations'>]: number | null;
};

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    limits: LimitsInForce;
  }
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    limits: LimitsInForce;
  }
}
