// Model prices and context windows from @pydantic/genai-prices (a maintained table: Node >= 20, no dependencies,
// cache read and write prices, updated as providers change theirs), under an override file for private models and
// a short list of local models that cost nothing. Loaded on the first question, so a run without a cost limit pays
// nothing for it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import localData from './data/local-models.json' with { type: 'json' };
import { lookupModel } from './model-table.js';
import { StageloopError } from '../common/stageloop-error.js';
import { messageOf } from '../common/error-message.js';

/** USD per million tokens. `cachedInput` (cache reads) and `cacheWriteInput` (cache writes) default to `input`. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
  cacheWriteInput?: number;
  /** Tokens; from the price source or the override file, for the default token budget. */
  contextWindow?: number;
}

/** Where the override file is read from: STAGELOOP_PRICES, else ./stageloop.prices.json when it exists. */
export const pricesFileVariable = 'STAGELOOP_PRICES';
const defaultPricesFile = 'stageloop.prices.json';

type GenaiPrices = typeof import('@pydantic/genai-prices');
let genai: GenaiPrices | undefined;
let fileTable: { path: string | undefined; table: Readonly<Record<string, ModelPrice>> } | undefined;

/** The override file's table (read once per path): `{ "models": { "my-model": { "input": 1, "output": 2 } } }`. */
export function overridePrices(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Readonly<Record<string, ModelPrice>> {
  const named = env[pricesFileVariable]?.trim() || undefined;
  const path = named ?? defaultPricesFile;
  if (fileTable !== undefined && fileTable.path === path) return fileTable.table;
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (error) {
    if (named === undefined && (error as { code?: string }).code === 'ENOENT')
      return (fileTable = { path, table: {} }).table;
    throw new StageloopError('config', `${pricesFileVariable}: cannot read ${path}: ${messageOf(error)}`);
  }
  return (fileTable = { path, table: checkPricesFile(text, path) }).table;
}

function checkPricesFile(text: string, path: string): Readonly<Record<string, ModelPrice>> {
  const fail = (problem: string): never => {
    throw new StageloopError(
      'config',
      `${path}: ${problem} (format: {"models": {"NAME": {"input": 1, "output": 2}}}, USD per million tokens)`,
    );
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    fail(`not JSON: ${messageOf(error)}`);
  }
  const models = (parsed as { models?: unknown } | null)?.models;
  if (typeof models !== 'object' || models === null || Array.isArray(models)) return fail('no "models" object');
  const number = (value: unknown) =>
    value === undefined || (typeof value === 'number' && value >= 0 && Number.isFinite(value));
  for (const [name, price] of Object.entries(models as Record<string, Partial<ModelPrice>>)) {
    const fields = ['input', 'output', 'cachedInput', 'cacheWriteInput', 'contextWindow'] as const;
    if (
      typeof price?.input !== 'number' ||
      typeof price.output !== 'number' ||
      !fields.every((field) => number(price[field]))
    )
      fail(
        `the price of "${name}" needs "input" and "output" (and may have "cachedInput", "cacheWriteInput", "contextWindow"), each a number >= 0`,
      );
  }
  return models as Record<string, ModelPrice>;
}

/** The package, loaded synchronously on first use (its CommonJS build: the budget asks from synchronous code). */
function loadGenai(): GenaiPrices {
  return (genai ??= createRequire(import.meta.url)('@pydantic/genai-prices') as GenaiPrices);
}

const rate = (value: unknown): number | undefined =>
  typeof value === 'number'
    ? value
    : typeof (value as { base?: unknown })?.base === 'number'
      ? (value as { base: number }).base
      : undefined;

const remembered = new Map<string, ModelPrice | undefined>();

/** The maintained table's price of a model (the base price of a tiered one), or undefined when it does not know it. */
export function listedPrice(modelName: string): ModelPrice | undefined {
  const name = modelName.trim().replace(/^.*\//, '');
  if (remembered.has(name)) return remembered.get(name);
  const found = loadGenai().calcPrice({ input_tokens: 0 }, name);
  let price: ModelPrice | undefined;
  if (found !== null) {
    const prices = found.model_price;
    const input = rate(prices.input_mtok);
    const output = rate(prices.output_mtok);
    if (input !== undefined && output !== undefined) {
      price = { input, output };
      const cached = rate(prices.cache_read_mtok);
      const write = rate(prices.cache_write_mtok);
      if (cached !== undefined) price.cachedInput = cached;
      if (write !== undefined) price.cacheWriteInput = write;
      if (found.model.context_window !== undefined) price.contextWindow = found.model.context_window;
    }
  }
  if (remembered.size < 256) remembered.set(name, price);
  return price;
}

const localModels = new Set(localData.models);

/** A local model by its name or its name with a tag (`llama3.1:8b`); `mistral-large` is Mistral's hosted model, not `mistral`. */
function localPrice(modelName: string): ModelPrice | undefined {
  const name = modelName.trim().toLowerCase().replace(/^.*\//, '');
  return localModels.has(name) || localModels.has(name.split(':')[0]!) ? { input: 0, output: 0 } : undefined;
}

/** A model's price: the caller's, the override file's, a local model's (0), else the maintained table's. */
export function priceFor(modelName: string, prices: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  return (
    lookupModel(prices, modelName) ??
    lookupModel(overridePrices(), modelName) ??
    localPrice(modelName) ??
    listedPrice(modelName)
  );
}

/** A model's context window from the override file or the maintained table (undefined: neither knows it). */
export function listedContextWindow(modelName: string): number | undefined {
  return lookupModel(overridePrices(), modelName)?.contextWindow ?? listedPrice(modelName)?.contextWindow;
}

/**
 * Cost of a usage in USD. Cache reads and cache writes are part of inputTokens (usage keeps one meaning across
 * providers) and billed at their own rates; the rest of the input at the input rate.
 */
export function costUsd(
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; cacheWriteInputTokens?: number },
  price: ModelPrice,
): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const written = Math.min(usage.cacheWriteInputTokens ?? 0, usage.inputTokens - cached);
  const dollarsPerMillion =
    (usage.inputTokens - cached - written) * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWriteInput ?? price.input) +
    usage.outputTokens * price.output;
  return dollarsPerMillion / 1_000_000;
}
