// Pipelines are data: three lists of stages and an iteration cap. Editing returns a new pipeline.
import { StageloopError } from '../common/stageloop-error.js';
import type { Stage, Zone } from './stage.js';

export interface Pipeline {
  readonly name: string;
  readonly setup: readonly Stage[];
  readonly iteration: readonly Stage[];
  readonly finalize: readonly Stage[];
  readonly maxIterations: number;
}

export interface PipelineDefinition {
  name: string;
  setup?: readonly Stage[];
  iteration: readonly Stage[];
  finalize?: readonly Stage[];
  maxIterations: number;
}

const kebabCase = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const zones: readonly Zone[] = ['setup', 'iteration', 'finalize'];
const validPipelines = new WeakSet<Pipeline>();

export function definePipeline(definition: PipelineDefinition): Pipeline {
  const fail = (problem: string): never => {
    throw new StageloopError('config', `pipeline "${String(definition?.name)}": ${problem}`);
  };
  if (typeof definition !== 'object' || definition === null)
    throw new StageloopError('config', 'definePipeline needs an object');
  if (typeof definition.name !== 'string' || !kebabCase.test(definition.name)) {
    fail('name must be kebab-case, like "react" or "plan-execute-replan"');
  }
  const lists = { setup: definition.setup ?? [], iteration: definition.iteration, finalize: definition.finalize ?? [] };
  const seen = new Map<string, Zone>();
  for (const zone of zones) {
    const stages = lists[zone];
    if (!Array.isArray(stages)) fail(`${zone} must be an array of stages`);
    stages.forEach((stage: Stage, index: number) => {
      if (typeof stage !== 'object' || stage === null || typeof stage.execute !== 'function') {
        fail(`${zone}[${index}] is not a stage: give an object with a name and an execute(state, ctx) method`);
      }
      if (typeof stage.name !== 'string' || !kebabCase.test(stage.name)) {
        fail(`stage "${String(stage.name)}" in ${zone} must have a kebab-case name, like "think" or "token-budget"`);
      }
      const previous = seen.get(stage.name);
      if (previous !== undefined) {
        fail(`stage "${stage.name}" appears twice (${previous} and ${zone}): give each stage a unique name`);
      }
      seen.set(stage.name, zone);
    });
  }
  if (lists.iteration.length === 0) fail('iteration must hold at least one stage');
  if (!Number.isInteger(definition.maxIterations) || definition.maxIterations < 1) {
    fail(`maxIterations must be a positive integer, got ${String(definition.maxIterations)}`);
  }
  const pipeline: Pipeline = Object.freeze({
    name: definition.name,
    setup: Object.freeze([...lists.setup]),
    iteration: Object.freeze([...lists.iteration]),
    finalize: Object.freeze([...lists.finalize]),
    maxIterations: definition.maxIterations,
  });
  validPipelines.add(pipeline);
  return pipeline;
}

export function isPipeline(value: unknown): value is Pipeline {
  return typeof value === 'object' && value !== null && validPipelines.has(value as Pipeline);
}

export function stageNames(pipeline: Pipeline): string[] {
  return zones.flatMap((zone) => pipeline[zone].map((stage) => stage.name));
}

function locate(pipeline: Pipeline, stageName: string): { zone: Zone; index: number } {
  for (const zone of zones) {
    const index = pipeline[zone].findIndex((stage) => stage.name === stageName);
    if (index >= 0) return { zone, index };
  }
  throw new StageloopError(
    'config',
    `pipeline "${pipeline.name}" has no stage "${stageName}"; its stages are: ${stageNames(pipeline).join(', ')}`,
  );
}

function edit(pipeline: Pipeline, stageName: string, change: (stages: Stage[], index: number) => void): Pipeline {
  const { zone, index } = locate(pipeline, stageName);
  const stages = [...pipeline[zone]];
  change(stages, index);
  return definePipeline({ ...pipeline, [zone]: stages });
}

export function insertBefore(pipeline: Pipeline, stageName: string, ...stages: Stage[]): Pipeline {
  return edit(pipeline, stageName, (list, index) => list.splice(index, 0, ...stages));
}

export function insertAfter(pipeline: Pipeline, stageName: string, ...stages: Stage[]): Pipeline {
  return edit(pipeline, stageName, (list, index) => list.splice(index + 1, 0, ...stages));
}

export function replaceStage(pipeline: Pipeline, stageName: string, stage: Stage): Pipeline {
  return edit(pipeline, stageName, (list, index) => list.splice(index, 1, stage));
}

export function removeStage(pipeline: Pipeline, stageName: string): Pipeline {
  return edit(pipeline, stageName, (list, index) => list.splice(index, 1));
}
