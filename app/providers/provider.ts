// What a provider row is: a function from the recipe's model settings and the environment to a ChatModel.
import type { Environment } from '../../src/model/config.js';
import type { ChatModel } from '../../src/model/types.js';
import type { RunRecipe } from '../recipe.js';

/** What one row builds a model from: the recipe's name and server; `apiKey` is a fallback server's own key (expanded). */
export type ProviderSettings = Pick<RunRecipe['model'], 'name' | 'baseUrl'> & { apiKey?: string };

/** A provider row; it loads its adapter's modules when called, so a run loads only the one it uses. */
export type Provider = (settings: ProviderSettings, env: Environment) => Promise<ChatModel>;
