// The budget's options, their validation, and the prices the cost budget reads (model-prices.ts).
import type { BudgetMode } from './budget-decide.js';
import { priceFor, pricesFileVariable, type ModelPrice } from '../../src/model/model-prices.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

export { costUsd, priceFor, type ModelPrice } from '../../src/model/model-prices.js';

export interface BudgetOptions {
  /** Reasoning turns (loop iterations); the last one is made without tools. */
  maxIterations?: number;
  /** Input + output tokens of the whole run. */
  maxTokens?: number;
  /** Without maxTokens: a token budget of this share of the model's context window (the defaults use 0.8). */
  contextShare?: number;
  /** Context windows per model name for contextShare, added to (and overriding) stages/shared/data/context-windows.json. */
  contextWindows?: Readonly<Record<string, number>>;
  /** US dollars, from the price table; an unknown model's price is a configuration error. */
  maxCostUsd?: number;
  /** Wall-clock milliseconds from run start; the call in flight is aborted at the deadline. */
  maxTimeMs?: number;
  /** Fraction of any budget at which the model is told to finish (default 0.8). */
  warnAt?: number;
  /** Prices per model name, over the override file's and @pydantic/genai-prices' (docs/models.md). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * 'soft' (default): a spent token or cost budget grants one tools-less final turn. 'hard': the run stops before a
   * model call whose estimated tokens (its input counted locally plus the largest output of any earlier turn) would
   * cross the token or cost limit, and a spent budget grants no final turn.
   */
  mode?: BudgetMode;
}

export type Settings = Omit<BudgetOptions, 'warnAt'> & { warnAt: number };

export function validate(options: BudgetOptions): Settings {
  const fail = (problem: string): never => {
    throw new StageloopError('config', `budget: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail('options must be an object like { maxTokens: 50000 }');
  const positive = (name: keyof BudgetOptions, whole: boolean) => {
    const value = options[name];
    if (value === undefined) return;
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
      fail(`${name} must be a positive ${whole ? 'whole ' : ''}number, got ${JSON.stringify(value)}`);
    }
  };
  positive('maxIterations', true);
  positive('maxTokens', true);
  positive('maxCostUsd', false);
  positive('maxTimeMs', false);
  if (
    options.contextShare !== undefined &&
    !(typeof options.contextShare === 'number' && options.contextShare > 0 && options.contextShare <= 1)
  ) {
    fail(`contextShare must be a fraction above 0 and at most 1, got ${JSON.stringify(options.contextShare)}`);
  }
  const warnAt = options.warnAt ?? 0.8;
  if (options.mode !== undefined && options.mode !== 'soft' && options.mode !== 'hard')
    fail(`mode must be "soft" or "hard", got ${JSON.stringify(options.mode)}`);
  if (typeof warnAt !== 'number' || !(warnAt > 0 && warnAt <= 1))
    fail(`warnAt must be a fraction above 0 and at most 1, got ${JSON.stringify(warnAt)}`);
  for (const [model, price] of Object.entries(options.prices ?? {})) {
    const valid = (value: unknown) => typeof value === 'number' && value >= 0 && Number.isFinite(value);
    if (
      !valid(price?.input) ||
      !valid(price?.output) ||
      (price.cachedInput !== undefined && !valid(price.cachedInput))
    ) {
      fail(
        `the price of "${model}" must be { input, output, cachedInput? } in USD per million tokens, each a number >= 0`,
      );
    }
  }
  if (
    [options.maxIterations, options.maxTokens, options.contextShare, options.maxCostUsd, options.maxTimeMs].every(
      (limit) => limit === undefined,
    )
  ) {
    fail('give at least one of maxIterations, maxTokens, contextShare, maxCostUsd, maxTimeMs');
  }
  return { ...options, warnAt };
}

/** A cost limit needs the model's price: unknown, it fails at assembly with `what` naming the setting in the door's words. */
export function requirePrice(
  modelName: string | undefined,
  prices: Readonly<Record<string, ModelPrice>> | undefined,
  what: string,
): void {
  if (modelName === undefined || priceFor(modelName, prices) !== undefined) return;
  throw new StageloopError(
    'config',
    `${what} needs the price of model "${modelName}", which stageloop does not know: add it to stageloop.prices.json (or the file ${pricesFileVariable} names), or use budget({ prices }) in code`,
  );
}
