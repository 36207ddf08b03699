// What one turn (one run) spent, as a session keeps it: its tokens, and its cost at the model's price when known.
import type { Usage } from '../engine/usage.js';
import { costUsd, priceFor, type ModelPrice } from '../model/model-prices.js';
import type { SessionUsage } from './types.js';

/** `withCost` false: the tokens only (the price table is then not even loaded); an unknown price costs 0. */
export function turnUsage(
  usage: Usage,
  modelName: string | undefined,
  prices?: Readonly<Record<string, ModelPrice>>,
  withCost = true,
): SessionUsage {
  const tokens = usage.inputTokens + usage.outputTokens;
  if (!withCost || tokens === 0 || modelName === undefined) return { tokens, costUsd: 0 };
  const price = priceFor(modelName, prices);
  return { tokens, costUsd: price === undefined ? 0 : costUsd(usage, price) };
}
