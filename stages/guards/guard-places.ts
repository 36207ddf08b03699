// placeGuards: the mechanics of putting guard stages in their places of a pipeline (applyGuards in pipelines/guards.ts
// says which guards); a guard already there is replaced in place, and the `limits` stage reports what ends up in force.
import {
  definePipeline,
  insertAfter,
  insertBefore,
  replaceStage,
  stageNames,
  type Pipeline,
} from '../../src/engine/pipeline.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { Stage } from '../../src/engine/stage.js';
import { limits } from './limits.js';
import type { SettingNamer } from '../../src/engine/guard-settings.js';
import type { ModelPrice } from './budget-options.js';

/** What applyGuards can check at assembly time instead of on the first run. */
export interface GuardEnvironment {
  /** The model the pipeline will run with: a cost budget needs its price. */
  modelName?: string;
  /** Extra prices, as for budget({ prices }). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Add the default guards the settings do not give or switch off (0); `noGuards` turns them all off. */
  defaults?: boolean;
  /** With `defaults`: a time limit in seconds when `timeoutSeconds` is not given (an assembled run's 600). */
  defaultTimeoutSeconds?: number;
  /** How errors name a setting (the CLI: by its flag); default the field name. */
  name?: SettingNamer;
}

/** Where each guard stage goes. */
export interface GuardPlaces {
  /** First in setup, in this order. */
  setupFront: Stage[];
  afterHistory: Stage[];
  /** Before think, or first in the iteration when there is no think. */
  beforeThink: Stage[];
  beforeAct: Stage[];
  afterAct: Stage[];
}

export const noGuardPlaces = (): GuardPlaces => ({
  setupFront: [],
  afterHistory: [],
  beforeThink: [],
  beforeAct: [],
  afterAct: [],
});

/** Throws unless the pipeline has `stage`; `what` names the setting that needs it, in the caller's words. */
export function requireStage(pipeline: Pipeline, stage: string, what: string): void {
  const names = stageNames(pipeline);
  if (!names.includes(stage))
    throw new StageloopError(
      'config',
      `${what} needs a pipeline with an "${stage}" stage; "${pipeline.name}" has: ${names.join(', ')}`,
    );
}

/**
 * The pipeline with the guards in their places, its iteration cap at least `maxIterations + 1` (so the budget, not
 * the bare cap, ends the run: a tools-less last turn, then budget_iterations) and a `limits` stage first in setup.
 * Unchanged (the same object) when nothing is placed and `alwaysReport` is false.
 */
export function placeGuards(
  pipeline: Pipeline,
  places: GuardPlaces,
  maxIterations: number | undefined,
  alwaysReport: boolean,
): Pipeline {
  let guarded = pipeline;
  const fresh = (stages: Stage[]) =>
    stages.filter((stage) => {
      if (!stageNames(guarded).includes(stage.name)) return true;
      guarded = replaceStage(guarded, stage.name, stage);
      return false;
    });
  const front = fresh(places.setupFront);
  if (front.length > 0) guarded = withFirstInSetup(guarded, front);
  const afterHistory = fresh(places.afterHistory);
  if (afterHistory.length > 0) guarded = insertAfter(guarded, 'history', ...afterHistory);
  const thinking = fresh(places.beforeThink);
  if (thinking.length > 0)
    guarded = insertBefore(
      guarded,
      stageNames(pipeline).includes('think') ? 'think' : guarded.iteration[0]!.name,
      ...thinking,
    );
  const acting = fresh(places.beforeAct);
  if (acting.length > 0) guarded = insertBefore(guarded, 'act', ...acting);
  const acted = fresh(places.afterAct);
  if (acted.length > 0) guarded = insertAfter(guarded, 'act', ...acted);
  if (maxIterations !== undefined && guarded.maxIterations < maxIterations + 1)
    guarded = definePipeline({ ...guarded, maxIterations: maxIterations + 1 });
  if (guarded === pipeline && !alwaysReport) return pipeline;
  // The limits in force, first in setup: for --json, the root span and the `limits` event.
  const stages = [...guarded.setup, ...guarded.iteration, ...guarded.finalize].filter(
    (stage) => stage.name !== 'limits',
  );
  const reported = limits(stages, guarded.maxIterations);
  return stageNames(guarded).includes('limits')
    ? replaceStage(guarded, 'limits', reported)
    : withFirstInSetup(guarded, [reported]);
}

function withFirstInSetup(pipeline: Pipeline, stages: Stage[]): Pipeline {
  const first = pipeline.setup[0];
  return first === undefined
    ? definePipeline({ ...pipeline, setup: stages })
    : insertBefore(pipeline, first.name, ...stages);
}
