// The provider table: the code that builds a run's model, one row per model API. A recipe names its row in
// `model.provider`; adding a provider is one file in app/providers/ and one row here.
import { StageloopError } from '../src/common/stageloop-error.js';
import type { Environment } from '../src/model/config.js';
import type { ChatModel } from '../src/model/types.js';
import { anthropicProvider } from './providers/anthropic.js';
import { offlineProvider } from './providers/offline.js';
import { openAIConfigured, openAIProvider, openAIUnconfigured } from './providers/openai.js';
import { openAIResponsesProvider } from './providers/openai-responses.js';
import type { Provider } from './providers/provider.js';
import type { RunRecipe } from './recipe.js';

export type ProviderTable = Readonly<Record<string, Provider>>;

/** `offline` is the built-in model (a recipe's `offline: true`); every other row is a model server. */
export const providers: ProviderTable = {
  openai: openAIProvider,
  'openai-responses': openAIResponsesProvider,
  anthropic: anthropicProvider,
  offline: offlineProvider,
};

/** What picks the model: the recipe's model settings (its fallbacks are added by withFallbacks). */
export type ModelSettings = Pick<RunRecipe['model'], 'provider' | 'offline' | 'name' | 'baseUrl'>;

export interface ModelChoice {
  model: ChatModel;
  /** The row it came from: fallbacks and agents' models are built by the same. */
  provider: string;
  /** One line for stderr saying which model is in use and why. */
  notice: string;
  offline: boolean;
}

/** The row of that name; an unknown name is a config error listing the rows (`where`: the setting that named it). */
export function providerRow(name: string, table: ProviderTable = providers, where = 'model.provider'): Provider {
  const row = Object.hasOwn(table, name) ? table[name] : undefined;
  if (row === undefined)
    throw new StageloopError(
      'config',
      `${where} "${name}" is not a provider: choose one of ${Object.keys(table).join(', ')}`,
    );
  return row;
}

/**
 * The named row; none named: `offline: true` is the offline row, else STAGELOOP_PROVIDER's (only when the recipe left
 * `offline` open, so a recording made before providers were recorded resumes as it ran), else OpenAI when the
 * environment or a base URL names a server, else offline.
 */
function chosenProvider(
  settings: ModelSettings,
  env: Environment,
  table: ProviderTable,
): { name: string; reason?: string } {
  const { provider, offline } = settings;
  if (provider !== undefined) {
    providerRow(provider, table);
    if (offline !== undefined && offline !== (provider === 'offline')) {
      throw new StageloopError(
        'config',
        `model.offline is ${offline} but model.provider is "${provider}": drop "offline" (the provider decides)`,
      );
    }
    return { name: provider, reason: `provider ${provider}` };
  }
  if (offline === true) return { name: 'offline', reason: '--offline' };
  const fromEnv = env.STAGELOOP_PROVIDER?.trim();
  if (fromEnv && offline === undefined) {
    providerRow(fromEnv, table, 'STAGELOOP_PROVIDER');
    return { name: fromEnv, reason: `STAGELOOP_PROVIDER=${fromEnv}` };
  }
  if (offline === false || settings.baseUrl !== undefined || openAIConfigured(env)) return { name: 'openai' };
  return { name: 'offline', reason: openAIUnconfigured };
}

/** The recipe's model, built by its row, with the notice the CLI prints about it. */
export async function chooseModel(
  settings: ModelSettings,
  env: Environment,
  table: ProviderTable = providers,
): Promise<ModelChoice> {
  const { name, reason = '' } = chosenProvider(settings, env, table);
  const model = await providerRow(name, table)(settings, env);
  if (name === 'offline')
    return {
      model,
      provider: name,
      notice: `using the offline model ${model.modelName} (${reason}); it only does arithmetic`,
      offline: true,
    };
  const where = model.endpoint ? ` at ${model.endpoint.address}:${model.endpoint.port}` : '';
  return { model, provider: name, notice: `using model ${model.modelName}${where}`, offline: false };
}
