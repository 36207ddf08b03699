// applyGuards: the guard settings (and, asked, the default guards) as a list of guard stages, put in their places by
// placeGuards. Pure: the given pipeline is unchanged. The settings come parsed; each door names them in its own words.
import { stageNames, type Pipeline } from '../src/engine/pipeline.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { checkGuardSettings, type GuardSettings, type SettingNamer } from '../src/engine/guard-settings.js';
import { budget, priceFor, type BudgetOptions, type ModelPrice } from '../stages/guards/budget.js';
import { defaultContextShare } from '../stages/shared/context-window.js';
import { noGuardPlaces, placeGuards, requireStage } from '../stages/guards/guard-places.js';
import { injectionGuard } from '../stages/guards/injection/injection-guard.js';
import { loopGuard } from '../stages/guards/loop-guard.js';
import { perStepPipeline } from '../stages/plan/plan-branch.js';
import { prune } from '../stages/guards/prune.js';

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

/** The defaults (docs/guards.md): the share of the context window, the identical failing call refused, an assembled run's time limit. */
export const guardDefaults = Object.freeze({ contextShare: defaultContextShare, loopLimit: 3, cliTimeoutSeconds: 600 });

/**
 * Setup gets `limits`, `budget-start`, `injection-guard-task` and `injection-guard-tools` first, `injection-guard-history` after `history`; `budget` and `prune` go before `think`; `loop-guard`
 * before `act`; `loop-guard-history` and `injection-guard` after `act` (so observe feeds back screened results).
 * Only the guards whose settings are given are added (with `environment.defaults`, the defaults too); a setting of 0
 * turns its guard off. A guard stage already in the pipeline is replaced. Throws a config error of one line.
 */
export function applyGuards(pipeline: Pipeline, settings: GuardSettings, environment: GuardEnvironment = {}): Pipeline {
  const name = environment.name ?? ((setting) => setting);
  const { maxTokens, maxCostUsd, maxIterations, injection, onRepeat, contextBudget, budgetMode } = checkGuardSettings(
    settings,
    name,
  );
  const defaults = environment.defaults === true && settings.noGuards !== true;
  // 0 is off; absent is the default where one applies.
  const given = (value: number | undefined, fallback?: number) => (value === 0 ? undefined : (value ?? fallback));
  const timeoutSeconds = given(settings.timeoutSeconds, defaults ? environment.defaultTimeoutSeconds : undefined);
  const loopLimit = given(settings.loopLimit, defaults || onRepeat !== undefined ? guardDefaults.loopLimit : undefined);
  if (
    maxCostUsd !== undefined &&
    environment.modelName !== undefined &&
    priceFor(environment.modelName, environment.prices) === undefined
  ) {
    throw new StageloopError(
      'config',
      `${name('maxCostUsd')} needs the price of model "${environment.modelName}", which stageloop does not know: add it to stages/guards/data/model-prices.json or use budget({ prices }) in code`,
    );
  }
  const names = stageNames(pipeline);
  const places = noGuardPlaces();
  const limitsGiven: BudgetOptions = {
    ...(given(maxTokens) !== undefined && { maxTokens: given(maxTokens) }),
    ...(maxTokens === undefined && defaults && { contextShare: guardDefaults.contextShare }),
    ...(maxCostUsd !== undefined && { maxCostUsd }),
    ...(timeoutSeconds !== undefined && { maxTimeMs: timeoutSeconds * 1000 }),
    ...(maxIterations !== undefined && { maxIterations }),
  };
  if (Object.keys(limitsGiven).length > 0) {
    const guard = budget({
      ...limitsGiven,
      ...(environment.prices !== undefined && { prices: environment.prices }),
      ...(budgetMode !== undefined && { mode: budgetMode }),
    });
    places.setupFront.push(guard.start);
    places.beforeThink.push(guard);
  }
  if (given(contextBudget) !== undefined) places.beforeThink.push(prune({ budgetTokens: contextBudget! }));
  else if (contextBudget === undefined && defaults && names.includes('think')) places.beforeThink.push(prune());
  if (
    loopLimit !== undefined &&
    (settings.loopLimit !== undefined || onRepeat !== undefined || names.includes('act'))
  ) {
    requireStage(
      pipeline,
      'act',
      name(onRepeat !== undefined && settings.loopLimit === undefined ? 'onRepeat' : 'loopLimit'),
    );
    const guard = loopGuard({ limit: loopLimit, ...(onRepeat !== undefined && { onRepeat }) });
    places.beforeAct.push(guard);
    places.afterAct.push(guard.history);
  }
  if (injection !== undefined) {
    requireStage(pipeline, 'act', name('injection'));
    const guard = injectionGuard({ task: injection, toolResults: injection });
    places.setupFront.push(guard.task, guard.tools);
    if (names.includes('history')) places.afterHistory.push(guard.history);
    places.afterAct.push(guard);
  }
  const guarded = placeGuards(pipeline, places, maxIterations, environment.defaults === true);
  // In a plan pipeline the guards run per plan step, so each sees its step's own turn when steps run side by side.
  return guarded !== pipeline && guarded.setup.some((stage) => stage.name === 'plan')
    ? perStepPipeline(guarded)
    : guarded;
}
