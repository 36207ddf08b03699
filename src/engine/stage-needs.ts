// Assembly: a run's ports checked against what its pipeline's stages need, once, before the first stage runs. A
// stage that cannot work without a port fails the run here, in one line naming the port and the fix, not at its
// first model call; a pipeline whose stages all declare their needs, none running tool calls (no act), offers the
// model no tools at all.
import { StageloopError } from '../common/stageloop-error.js';
import type { Pipeline } from './pipeline.js';
import { zones } from './pipeline.js';
import type { Deps, Stage } from './stage.js';

interface PipelineNeeds {
  /** Each needed port with the first stage that needs it. */
  readonly deps: ReadonlyMap<string, string>;
  readonly runsTools: boolean;
}

/** Computed once per pipeline: a run pays a few property reads. */
const byPipeline = new WeakMap<Pipeline, PipelineNeeds>();

/** The ports as this pipeline's stages see them; throws a `config` StageloopError when a needed one is missing. */
export function assembledDeps(pipeline: Pipeline, deps: Deps): Deps {
  const needs = needsOf(pipeline);
  for (const [port, stage] of needs.deps) {
    if ((deps as unknown as Record<string, unknown>)[port] !== undefined) continue;
    throw new StageloopError(
      'config',
      `pipeline "${pipeline.name}": stage "${stage}" needs deps.${port}, which this run was not given: pass ${port} in runPipeline's deps, or remove the stage`,
    );
  }
  // Tools nobody would run are not offered: the model's call would only come back "not run".
  if (needs.runsTools || deps.tools === undefined) return deps;
  const { tools: _unused, ...rest } = deps;
  return rest;
}

function needsOf(pipeline: Pipeline): PipelineNeeds {
  let needs = byPipeline.get(pipeline);
  if (needs === undefined) {
    const stages: Stage[] = zones.flatMap((zone) => pipeline[zone]);
    const deps = new Map<string, string>();
    for (const stage of stages)
      for (const port of stage.needs?.deps ?? []) if (!deps.has(port)) deps.set(port, stage.name);
    // A stage that declares no needs (a custom one) may call the tools itself: the pipeline keeps them.
    needs = { deps, runsTools: stages.some((stage) => stage.needs === undefined || stage.needs.runsTools === true) };
    byPipeline.set(pipeline, needs);
  }
  return needs;
}
