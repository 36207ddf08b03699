// applyGuards: the guard settings (and, asked, the default guards) as a list of guard stages, put in their places by
// placeGuards. Pure: the given pipeline is unchanged. The settings come parsed; each door names them in its own words.
import { stageNames, type Pipeline } from '../src/engine/pipeline.js';
import { checkGuardSettings, guardDefaults, type GuardSettings } from '../src/engine/guard-settings.js';
import { budget, type BudgetOptions } from '../stages/guards/budget.js';
import { requirePrice } from '../stages/guards/budget-options.js';
import { sessionBudget } from '../stages/guards/session-budget.js';
import { noGuardPlaces, placeGuards, requireStage, type GuardEnvironment } from '../stages/guards/guard-places.js';
import { injectionGuard } from '../stages/guards/injection/injection-guard.js';
import { loopGuard } from '../stages/guards/loop-guard.js';
import { perStepPipeline } from '../stages/plan/plan-branch.js';
import { prune } from '../stages/guards/prune.js';

export type { GuardEnvironment } from '../stages/guards/guard-places.js';
export { guardDefaults } from '../src/engine/guard-settings.js';

/**
 * The guards whose settings are given (with `environment.defaults`, the defaults too; 0 turns one off), each in its
 * place (docs/guards.md): a guard already there is replaced. Throws a config error of one line.
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
  if (maxCostUsd !== undefined) requirePrice(environment.modelName, environment.prices, name('maxCostUsd'));
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
      // ask: the soft budget, which asks a person when the run has one to ask (deps.onLimit).
      ...(budgetMode !== undefined && { mode: budgetMode === 'ask' ? 'soft' : budgetMode }),
    });
    places.setupFront.push(guard.start);
    places.beforeThink.push(guard);
  }
  const { sessionMaxTokens, sessionMaxCostUsd } = settings;
  if (sessionMaxTokens !== undefined || sessionMaxCostUsd !== undefined) {
    if (sessionMaxCostUsd !== undefined)
      requirePrice(environment.modelName, environment.prices, name('sessionMaxCostUsd'));
    places.beforeThink.push(
      sessionBudget({
        ...(sessionMaxTokens !== undefined && { maxTokens: sessionMaxTokens }),
        ...(sessionMaxCostUsd !== undefined && { maxCostUsd: sessionMaxCostUsd }),
        ...(budgetMode === 'hard' && { mode: 'hard' }),
        ...(environment.prices !== undefined && { prices: environment.prices }),
      }),
    );
  }
  if (given(contextBudget) !== undefined) places.beforeThink.push(prune({ budgetTokens: contextBudget! }));
  else if (contextBudget === undefined && defaults && names.includes('think')) places.beforeThink.push(prune());
  const asked = settings.loopLimit !== undefined || onRepeat !== undefined;
  if (loopLimit !== undefined && (asked || names.includes('act'))) {
    requireStage(
      pipeline,
      'act',
      name(settings.loopLimit === undefined && onRepeat !== undefined ? 'onRepeat' : 'loopLimit'),
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
