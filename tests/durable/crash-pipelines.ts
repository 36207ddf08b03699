// The pipelines the crash test runs, by name, so the child, the reference and the replay build the same one.
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import type { Pipeline } from '../../src/engine/pipeline.js';

export type CrashPipeline = 'react' | 'plan-execute-replan';

export function crashPipeline(name: CrashPipeline, maxIterations: number): Pipeline {
  return name === 'react' ? reactPipeline({ maxIterations }) : planExecuteReplanPipeline({ maxIterations });
}
