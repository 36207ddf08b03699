/** @module stageloop/app */
// `stageloop/app`: the composition root's public parts: turning run settings into a guarded pipeline.
export { applyGuards, type GuardEnvironment } from '../pipelines/guards.js';
export type { GuardSettings } from '../src/engine/guard-settings.js';
