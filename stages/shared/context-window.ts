// The context window of a model by name (local models: stages/shared/data/context-windows.json; hosted and private ones:
// model-prices.ts), and the share of it the default guards allow.
import windowData from './data/context-windows.json' with { type: 'json' };
import { lookupModel } from '../../src/model/model-table.js';
import { listedContextWindow } from '../../src/model/model-prices.js';
import { guardDefaults } from '../../src/engine/guard-settings.js';

const defaultWindows: Readonly<Record<string, number>> = windowData.models;
/** Window assumed for a model missing from the tables (128,000 tokens). */
export const unknownModelWindow = windowData.defaultWindow;
/** The share of the context window the default token budget and the default pruning allow (the documents' 80%). */
export const defaultContextShare = guardDefaults.contextShare;

export function contextWindowFor(modelName: string | undefined, overrides?: Readonly<Record<string, number>>): number {
  if (modelName === undefined) return unknownModelWindow;
  // No overrides is no table: a fresh empty one per call would miss the lookup's cache every time.
  return (
    (overrides === undefined ? undefined : lookupModel(overrides, modelName)) ??
    lookupModel(defaultWindows, modelName) ??
    listedContextWindow(modelName) ??
    unknownModelWindow
  );
}

/** `share` of the model's window, in whole tokens. */
export function contextShareTokens(
  modelName: string | undefined,
  share: number,
  overrides?: Readonly<Record<string, number>>,
): number {
  return Math.floor(contextWindowFor(modelName, overrides) * share);
}
