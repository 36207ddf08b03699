// The workspace in a pipeline: the workspace stage after context; with skills, the skills stage after act (per plan
// step in a plan pipeline, so steps side by side each report their own loads).
import { insertAfter, stageNames, type Pipeline } from '../src/engine/pipeline.js';
import { perStepPipeline } from './plan/plan-branch.js';
import { skills } from './workspace/skills.js';
import { workspace, type WorkspaceOptions } from './workspace/workspace.js';

export function withWorkspace(pipeline: Pipeline, options: WorkspaceOptions): Pipeline {
  const names = stageNames(pipeline);
  if (!names.includes('context')) return pipeline;
  const given = insertAfter(pipeline, 'context', workspace(options));
  if ((options.skills ?? []).length === 0 || !names.includes('act')) return given;
  const loading = insertAfter(given, 'act', skills());
  return names.includes('plan') ? perStepPipeline(loading) : loading;
}
