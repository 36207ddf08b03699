// applyGuards: turns CLI-style guard flags (and, asked, the default guards) into a new pipeline with the guard stages in their places. Pure: the given pipeline is unchanged.
import { definePipeline, insertAfter, insertBefore, replaceStage, stageNames, type Pipeline } from '../src/engine/pipeline.js';
import type { Stage } from '../src/engine/stage.js';
import { budget, priceFor, type BudgetOptions, type ModelPrice } from '../stages/guards/budget.js';
import { defaultContextShare } from '../stages/guards/context-window.js';
import { injectionGuard } from '../stages/guards/injection/injection-guard.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { limits } from '../stages/guards/limits.js';
import { loopGuard } from '../stages/guards/loop-guard.js';
import { perStepPipeline } from '../stages/plan/plan-branch.js';
import { prune } from '../stages/guards/prune.js';

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
  /** --on-repeat refuse|ask: what the repeated-call guard does at that call (ask: a person decides; it brings the guard on its own). */
  onRepeat?: string;
  /** --context-budget TOKENS: prune each request to this many tokens. */
  contextBudget?: number | string;
  /** --budget-mode soft|hard: hard stops before a model call that would cross --max-tokens or --max-cost. */
  budgetMode?: string;
  /** --no-guards: none of the default guards (docs/guards.md "Defaults"); guards given by their own flags still apply. */
  noGuards?: boolean;
}

/** What applyGuards can check at assembly time instead of on the first run. */
export interface GuardEnvironment {
  /** The model the pipeline will run with: a cost budget needs its price. */
  modelName?: string;
  /** Extra prices, as for budget({ prices }). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Add the default guards that the flags do not give or switch off (0): the token budget and per-request pruning at
   * 80% of the model's context window and the repeated-call guard at 3; `noGuards` in the flags turns them all off.
   */
  defaults?: boolean;
  /** With `defaults`: a time limit in seconds when --timeout is not given (the CLI's 600). */
  defaultTimeoutSeconds?: number;
}

/** The defaults (docs/guards.md): the share of the context window, and the identical failing call that is refused. */
export const guardDefaults = Object.freeze({ contextShare: defaultContextShare, loopLimit: 3, cliTimeoutSeconds: 600 });

/**
 * Setup gets `limits`, `budget-start`, `injection-guard-task` and `injection-guard-tools` first, `injection-guard-history` after `history`; `budget` and `prune` go before `think`; `loop-guard`
 * before `act`; `loop-guard-history` and `injection-guard` after `act` (so observe feeds back screened results).
 * Only the guards whose flags are given are added (with `environment.defaults`, the defaults too); a flag of 0 turns
 * its guard off. A guard stage already in the pipeline is replaced. Throws a `config` StageloopError with a one-line message.
 */
export function applyGuards(pipeline: Pipeline, flags: GuardFlags, environment: GuardEnvironment = {}): Pipeline {
  const defaults = environment.defaults === true && flags.noGuards !== true;
  // 0 is "off"; undefined is the default when defaults apply.
  const givenTokens = offOr(wholeNumber(flags.maxTokens, '--max-tokens', 0, 'a whole number of tokens (0 turns the token budget off)'));
  const maxCostUsd = positiveNumber(flags.maxCostUsd, '--max-cost', 'a positive number of US dollars');
  const givenTimeout = offOr(nonNegativeNumber(flags.timeoutSeconds, '--timeout', 'a number of seconds (0 turns the time limit off)'));
  const maxIterations = wholeNumber(flags.maxIterations, '--max-iterations', 1, 'a positive whole number');
  const givenLoopLimit = offOr(loopLimitOf(flags.loopLimit));
  const givenContextBudget = offOr(wholeNumber(flags.contextBudget, '--context-budget', 0, 'a whole number of tokens (0 turns pruning off)'));
  const maxTokens = givenTokens === 'off' ? undefined : givenTokens;
  const contextShare = givenTokens === undefined && defaults ? guardDefaults.contextShare : undefined;
  const timeoutSeconds = givenTimeout === 'off' ? undefined : (givenTimeout ?? (defaults ? environment.defaultTimeoutSeconds : undefined));
  const onRepeat = flags.onRepeat;
  if (onRepeat !== undefined && onRepeat !== 'refuse' && onRepeat !== 'ask') {
    throw new StageloopError('config', `--on-repeat must be "refuse" or "ask", got ${JSON.stringify(onRepeat)}`);
  }
  if (onRepeat !== undefined && givenLoopLimit === 'off') {
    throw new StageloopError('config', '--on-repeat needs the repeated-call guard, but --loop-limit 0 turns it off: drop one of the two');
  }
  const loopLimit = givenLoopLimit === 'off' ? undefined : (givenLoopLimit ?? (defaults || onRepeat !== undefined ? guardDefaults.loopLimit : undefined));
  const contextBudget = givenContextBudget === 'off' ? undefined : givenContextBudget;
  const defaultPrune = givenContextBudget === undefined && defaults;
  const budgetMode = flags.budgetMode;
  if (budgetMode !== undefined && budgetMode !== 'soft' && budgetMode !== 'hard') {
    throw new StageloopError('config', `--budget-mode must be "soft" or "hard", got ${JSON.stringify(budgetMode)}`);
  }
  const injection = flags.injection;
  if (injection !== undefined && !['flag', 'redact', 'block'].includes(injection)) {
    throw new StageloopError('config', `--guard injection=${String(injection)} is not an action: use flag, redact or block`);
  }
  if (maxCostUsd !== undefined && environment.modelName !== undefined && priceFor(environment.modelName, environment.prices) === undefined) {
    throw new StageloopError('config', `--max-cost needs the price of model "${environment.modelName}", which stageloop does not know: add it to stages/guards/data/model-prices.json or use budget({ prices }) in code`);
  }

  const names = stageNames(pipeline);
  const needs = (stage: string, flag: string) => {
    if (!names.includes(stage)) throw new StageloopError('config', `${flag} needs a pipeline with an "${stage}" stage; "${pipeline.name}" has: ${names.join(', ')}`);
  };
  const setupFront: Stage[] = [];
  const beforeThink: Stage[] = [];
  const beforeAct: Stage[] = [];
  const afterAct: Stage[] = [];
  const afterHistory: Stage[] = [];

  const budgetOptions: BudgetOptions = {};
  if (maxTokens !== undefined) budgetOptions.maxTokens = maxTokens;
  if (contextShare !== undefined) budgetOptions.contextShare = contextShare;
  if (maxCostUsd !== undefined) budgetOptions.maxCostUsd = maxCostUsd;
  if (timeoutSeconds !== undefined) budgetOptions.maxTimeMs = timeoutSeconds * 1000;
  if (maxIterations !== undefined) budgetOptions.maxIterations = maxIterations;
  if (environment.prices !== undefined) budgetOptions.prices = environment.prices;
  if (budgetMode === 'hard' && maxTokens === undefined && maxCostUsd === undefined) {
    throw new StageloopError('config', '--budget-mode hard needs --max-tokens or --max-cost: it decides before each model call whether that call would cross them');
  }
  if (budgetMode !== undefined) budgetOptions.mode = budgetMode;
  if (Object.keys(budgetOptions).some((key) => key !== 'prices' && key !== 'mode')) {
    const guard = budget(budgetOptions);
    setupFront.push(guard.start);
    beforeThink.push(guard);
  }
  if (contextBudget !== undefined) beforeThink.push(prune({ budgetTokens: contextBudget }));
  else if (defaultPrune && names.includes('think')) beforeThink.push(prune());
  if (loopLimit !== undefined && (givenLoopLimit !== undefined || onRepeat !== undefined || names.includes('act'))) {
    needs('act', onRepeat !== undefined && givenLoopLimit === undefined ? '--on-repeat' : '--loop-limit');
    const guard = loopGuard({ limit: loopLimit, ...(onRepeat !== undefined && { onRepeat }) });
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
  // A guard already there (a built-in pipeline's defaults) is replaced in place; the others are inserted.
  const fresh = (stages: Stage[]) => stages.filter((stage) => {
    if (!stageNames(guarded).includes(stage.name)) return true;
    guarded = replaceStage(guarded, stage.name, stage);
    return false;
  });
  const front = fresh(setupFront);
  if (front.length > 0) {
    const first = guarded.setup[0];
    guarded = first === undefined ? definePipeline({ ...guarded, setup: front }) : insertBefore(guarded, first.name, ...front);
  }
  const afterHistoryFresh = fresh(afterHistory);
  if (afterHistoryFresh.length > 0) guarded = insertAfter(guarded, 'history', ...afterHistoryFresh);
  const thinking = fresh(beforeThink);
  if (thinking.length > 0) {
    const anchor = names.includes('think') ? 'think' : guarded.iteration[0]!.name;
    guarded = insertBefore(guarded, anchor, ...thinking);
  }
  const acting = fresh(beforeAct);
  if (acting.length > 0) guarded = insertBefore(guarded, 'act', ...acting);
  const acted = fresh(afterAct);
  if (acted.length > 0) guarded = insertAfter(guarded, 'act', ...acted);
  // The runner's cap sits one above the budget, so the budget (tools-less last turn, then budget_iterations) decides.
  if (maxIterations !== undefined && guarded.maxIterations < maxIterations + 1) guarded = definePipeline({ ...guarded, maxIterations: maxIterations + 1 });
  if (guarded === pipeline && environment.defaults !== true) return pipeline;
  // The limits in force, first in setup: for --json, the root span and the `limits` event.
  const stages = [...guarded.setup, ...guarded.iteration, ...guarded.finalize].filter((stage) => stage.name !== 'limits');
  const reported = limits(stages, guarded.maxIterations);
  if (stageNames(guarded).includes('limits')) guarded = replaceStage(guarded, 'limits', reported);
  else guarded = guarded.setup.length === 0 ? definePipeline({ ...guarded, setup: [reported] }) : insertBefore(guarded, guarded.setup[0]!.name, reported);
  // In a plan pipeline the guards run per plan step, so each sees its step's own turn when steps run side by side.
  return guarded.setup.some((stage) => stage.name === 'plan') ? perStepPipeline(guarded) : guarded;
}

/** A guard's flag value: 0 means off. */
function offOr(value: number | undefined): number | 'off' | undefined {
  return value === 0 ? 'off' : value;
}

function loopLimitOf(value: number | string | undefined): number | undefined {
  const number = parsed(value, '--loop-limit', 'a whole number of at least 2 (the first call always runs), or 0 for off');
  if (number !== undefined && (!Number.isInteger(number) || number === 1 || number < 0)) {
    throw new StageloopError('config', `--loop-limit must be a whole number of at least 2 (the first call always runs), or 0 for off, got ${JSON.stringify(value)}`);
  }
  return number;
}

function nonNegativeNumber(value: number | string | undefined, flag: string, expected: string): number | undefined {
  const number = parsed(value, flag, expected);
  if (number !== undefined && !(number >= 0)) throw new StageloopError('config', `${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}

function parsed(value: number | string | undefined, flag: string, expected: string): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(number)) throw new StageloopError('config', `${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}

function wholeNumber(value: number | string | undefined, flag: string, minimum: number, expected: string): number | undefined {
  const number = parsed(value, flag, expected);
  if (number !== undefined && (!Number.isInteger(number) || number < minimum)) throw new StageloopError('config', `${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}

function positiveNumber(value: number | string | undefined, flag: string, expected: string): number | undefined {
  const number = parsed(value, flag, expected);
  if (number !== undefined && !(number > 0)) throw new StageloopError('config', `${flag} must be ${expected}, got ${JSON.stringify(value)}`);
  return number;
}
