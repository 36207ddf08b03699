/** @module stageloop/pipelines */
// The built-in pipelines, by the names the CLI uses.
import type { Pipeline } from '../src/engine/pipeline.js';
import { planExecuteReplanPipeline, type PlanExecuteReplanPipelineOptions } from './plan-execute-replan.js';
import { reactPipeline, type ReactPipelineOptions } from './react.js';

export { reactPipeline, type ReactPipelineOptions } from './react.js';
export { planExecuteReplanPipeline, type PlanExecuteReplanPipelineOptions } from './plan-execute-replan.js';
export { applyGuards, guardDefaults, type GuardEnvironment } from './guards.js';
export type { GuardSettings } from '../src/engine/guard-settings.js';

/** Options every built-in pipeline accepts by name; each pipeline also takes its own full options type. */
export type BuiltInPipelineOptions = ReactPipelineOptions & PlanExecuteReplanPipelineOptions;

export const builtInPipelines: Record<string, (options?: BuiltInPipelineOptions) => Pipeline> = {
  react: reactPipeline,
  'plan-execute-replan': planExecuteReplanPipeline,
};
