// `stageloop/app`: the composition root's public parts: turning run settings into a guarded pipeline.
export { applyGuards, type GuardFlags, type GuardEnvironment } from '../pipelines/guards.js';
