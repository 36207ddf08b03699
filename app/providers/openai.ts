// The `openai` provider row: any OpenAI-compatible chat server. The one place in the app that reads OPENAI_API_KEY,
// OPENAI_BASE_URL and OPENAI_MODEL; the adapter's modules load only when a run uses it.
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { Environment } from '../../src/model/config.js';
import type { OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import type { ChatModel } from '../../src/model/types.js';
import type { ProviderSettings } from './provider.js';

const setting = (env: Environment, name: string): string | undefined => env[name]?.trim() || undefined;

/** A key or a base URL in the environment: a recipe that names no provider uses this row, else the offline one. */
export function openAIConfigured(env: Environment): boolean {
  // Read here rather than by config.ts's isRealModelConfigured, so an offline run loads no adapter module.
  return setting(env, 'OPENAI_API_KEY') !== undefined || setting(env, 'OPENAI_BASE_URL') !== undefined;
}

/** Why the offline row was taken when the recipe named none. */
export const openAIUnconfigured = 'no OPENAI_API_KEY or OPENAI_BASE_URL set';

/** A --base-url other than OpenAI's needs a model name; say which flag gives it (an invalid URL is reported by the config). */
function requireModelName(settings: ProviderSettings, env: Environment): void {
  const { name, baseUrl } = settings;
  if (baseUrl === undefined || name !== undefined || setting(env, 'OPENAI_MODEL') !== undefined) return;
  if (!URL.canParse(baseUrl) || new URL(baseUrl).hostname === 'api.openai.com') return;
  throw new StageloopError(
    'usage',
    `--base-url ${baseUrl} needs a model name: pass --model NAME (or set OPENAI_MODEL), e.g. --model llama3.1:8b`,
  );
}

/**
 * The settings of a model on the server the settings name (else OPENAI_BASE_URL, else OpenAI with OPENAI_API_KEY);
 * settings win over the environment. The openai and openai-responses rows both build from these.
 */
export async function openAIServer(settings: ProviderSettings, env: Environment): Promise<OpenAIChatModelOptions> {
  if (settings.baseUrl === undefined && settings.apiKey === undefined && !openAIConfigured(env)) {
    throw new StageloopError(
      'config',
      `OPENAI_API_KEY is not set: this run uses model ${settings.name ?? 'gpt-4o-mini'} on OpenAI; export OPENAI_API_KEY (or pass --offline to a new run)`,
    );
  }
  requireModelName(settings, env);
  const { modelConfigFromEnv } = await import('../../src/model/config.js');
  return modelConfigFromEnv(env, {
    ...(settings.name !== undefined && { model: settings.name }),
    ...(settings.baseUrl !== undefined && { baseUrl: settings.baseUrl }),
    ...(settings.apiKey !== undefined && { apiKey: settings.apiKey }),
  });
}

/** The Chat Completions model of openAIServer's settings. */
export async function openAIProvider(settings: ProviderSettings, env: Environment): Promise<ChatModel> {
  const [options, { OpenAIChatModel }] = await Promise.all([
    openAIServer(settings, env),
    import('../../src/model/openai-model.js'),
  ]);
  return new OpenAIChatModel(options);
}

/** The AGENT_* settings are checked by this adapter's own rules even when the offline model ignores them, so a typo fails now. */
export async function checkAgentSettings(env: Environment): Promise<void> {
  const given = Object.fromEntries(
    ['AGENT_TEMPERATURE', 'AGENT_TOOL_PROTOCOL', 'AGENT_TOOL_CHOICE'].flatMap((name) =>
      setting(env, name) === undefined ? [] : [[name, env[name]]],
    ),
  );
  if (Object.keys(given).length === 0) return;
  const { modelConfigFromEnv } = await import('../../src/model/config.js');
  modelConfigFromEnv(given, { baseUrl: 'http://127.0.0.1/v1', model: 'offline' });
}
