// applyGuards: turns CLI-style guard flags into a new pipeline with the guard stages in their places. Pure: the given pipeline is unchanged.
import { definePipeline, insertAfter, insertBefore, stageNames, type Pipeline } from '../src/engine/pipeline.js';
import type { Stage } from '../src/engine/stage.js';
import { budget, priceFor, type BudgetOptions, type ModelPrice } from '../stages/budget.js';
import { GuardConfigError } from '../stages/guard-config-error.js';
import { injectionGuard } from '../stages/injection-guard.js';
import { loopGuard } from '../stages/loop-guard.js';
import { perStepPipeline } from '../stages/plan-branch.js';
import { prune } from '../stages/prune.js';

/** The guard flags of `stageloop run` / `stageloop pipelines`, as parsed values (numbers or their text). */
export interface GuardFlags {
  /** --max-tokens N: input + output tokens for the run. */
  maxTokens?: number | string;
  /** --max-cost USD */
  maxCostUsd?: number | string;
  /** --timeout SECONDS: wall-clock time from run start. */
  timeoutSeconds?: number | string;
  /** --max-iterations N: reasoning turns, the last one without tools. */
  maxIterations?: number | string;
  /** --guard injection[=flag|redact|block]: screens every door (task, tool descriptions, history and facts, tool results). */
  injection?: 'flag' | 'redact' | 'block';
  /** --loop-limit N: the same tool call is refused the Nth time. */
  loopLimit?: number | string;
  /** --context-budget TOKENS: prune each request to this many tokens. */
  contextBudget?: number | string;
  /** --budget-mode soft|hard: hard stops before a model call that would cross --max-tokens or --max-cost. */
  budgetMode?: string;
}

/** What applyGuards can check at assembly time instead of on the first run. */
export interface GuardEnvironment {
  /** The model the pipeline will run with: a cost budget needs its price. */
  modelName?: string;
  /** Extra prices, as for budget({ prices }). */
  prices?: Readonly<Record<string, ModelPrice>>;
}

/**
 * Setup gets `budget-start`, `injection-guard-task` and `injection-guard-tools` first, `injection-guard-history` after `history`; `budget` and `prune` go before `think`; `loop-guard`
 * before `act`; `loop-guard-history` and `injection-guard` after `act` (so observe feeds back screened results).
 * Only the guards whose flags are given are added. Throws GuardConfigError with a one-line message.
 */
export function applyGuards(pipeline: Pipeline, flags: GuardFlags, environment: GuardEnvironment = {}): Pipeline {
  const maxTokens = wholeNumber(flags.maxTokens, '--max-tokens', 1, 'a positive whole number of tokens');
  const maxCostUsd = positiveNumber(flags.maxCostUsd, '--max-cost', 'a positive number of US dollars');
  const timeoutSeconds = positiveNumber(flags.timeoutSeconds, '--timeout', 'a positive number of seconds');
  const maxIterations = wholeNumber(flags.maxIterations, '--max-iterations', 1, 'a positive whole number');
  const loopLimit = wholeNumber(flags.loopLimit, '--loop-limit', 2, 'a whole number of at least 2 (the first call always runs)');
  const contextBudget = wholeNumber(flags.contextBudget, '--context-budget', 1, 'a positive whole number of tokens');
  const budgetMode = flags.budgetMode;
  if (budgetMode !== undefined && budgetMode !== 'soft' && budgetMode !== 'hard') {
    throw new GuardConfigError(`--budget-mode must be "soft" or "hard", got ${JSON.stringify(budgetMode)}`);
  }
  const injection = flags.injection;
  if (injection !== undefined && !['flag', 'redact', 'block'].includes(injection)) {
    throw new GuardConfigError(`--guard injection=${String(injection)} is not an action: use flag, redact or block`);
  }
  if (maxCostUsd !== undefined && environment.modelName !== undefined && priceFor(environment.modelName, environment.prices) === undefined) {
    throw new GuardConfigError(`--max-cost needs the price of model "${environment.modelName}", which stageloop does not know: add it to stages/data/model-prices.json or use budget({ prices }) in code`);
  }

  const names = stageNames(pipeline);
  const needs = (stage: string, flag: string) => {
    if (!names.includes(stage)) throw new GuardConfigError(`${flag} needs a pipeline with an "${stage}" stage; "${pipeline.name}" has: ${names.join(', ')}`);
  };
  const setupFront: Stage[] = [];
  const beforeThink: Stage[] = [];
  const beforeAct: Stage[] = [];
  const afterAct: Stage[] = [];
  const afterHistory: Stage[] = [];

  const budgetOptions: BudgetOptions = {};
  if (maxTokens !== undefined) budgetOptions.maxTokens = maxTokens;
  if (maxCostUsd !== undefined) budgetOptions.maxCostUsd = maxCostUsd;
  if (timeoutSeconds !== undefined) budgetOptions.maxTimeMs = timeoutSeconds * 1000;
  if (maxIterations !== undefined) budgetOptions.maxIterations = maxIterations;
  if (environment.prices !== undefined) budgetOptions.prices = environment.prices;
  if (budgetMode === 'hard' && maxTokens === undefined && maxCostUsd === undefined) {
    throw new GuardConfigError('--budget-mode hard needs --max-tokens or --max-cost: it decides before each model call whether that call would cross them');
  }
  if (budgetMode !== undefined) budgetOptions.mode = budgetMode;
  if (Object.keys(budgetOptions).some((key) => key !== 'prices' && key !== 'mode')) {
    const guard = budget(budgetOptions);
    setupFront.push(guard.start);
    beforeThink.push(guard);
  }
  if (contextBudget !== undefined) beforeThink.push(prune({ budgetTokens: contextBudget }));
  if (loopLimit !== undefined) {
    needs('act', '--loop-limit');
    const guard = loopGuard({ limit: loopLimit });
    beforeAct.push(guard);
    afterAct.push(guard.history);
  }
  if (injection !== undefined) {
    needs('act', '--guard injection');
    const guard = injectionGuard({ task: injection, toolResults: injection });
    setupFront.push(guard.task, guard.tools);
    if (names.includes('history')) afterHistory.push(guard.history);
    afterAct.push(guard);
  }

  let guarded = pipeline;
  if (setupFront.length > 0) {
    const first = guarded.setup[0];
    guarded = first === undefined ? definePipeline({ ...guarded, setup: setupFront }) : insertBefore(guarded, first.name, ...setupFront);
  }
  if (afterHistory.length > 0) guarded = insertAfter(guarded, 'history', ...afterHistory);
  if (beforeThink.length > 0) {
    const anchor = names.includes('think') ? 'think' : guarded.iteration[0]!.name;
    guarded = insertBefore(guarded, anchor, ...beforeThink);
  }
  if (beforeAct.length > 0) guarded = insertBefore(guarded, 'act', ...beforeAct);
  if (afterAct.length > 0) guarded = insertAfter(guarded, 'act', ...afterAct);
  // The runner's cap sits one above the budget, so the budget (tools-less last turn, then budget_iterations) decides.
  if (maxIterations !== undefined && guarded.maxIterations < maxIterations + 1) guarded = definePipeline({ ...guarded, maxIterations: maxIterations + 1 });
  // In a plan pipeline the guards run per plan step, so each sees its step's own turn when steps run side by side.
  return guarded !== pipeline && guarded.setup.some((stage) => stage.name === 'plan') ? perStepPipeline(guarded) : guarded;
}

function parsed(value: number | string | undefined, flag: string, expected: string): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(number)) throw new GuardConfigError(`${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}

function wholeNumber(value: number | string | undefined, flag: string, minimum: number, expected: string): number | undefined {
  const number = parsed(value, flag, expected);
  if (number !== undefined && (!Number.isInteger(number) || number < minimum)) throw new GuardConfigError(`${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}

function positiveNumber(value: number | string | undefined, flag: string, expected: string): number | undefined {
  const number = parsed(value, flag, expected);
  if (number !== undefined && !(number > 0)) throw new GuardConfigError(`${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}
