// The `anthropic` provider row: Anthropic's Messages API through @anthropic-ai/sdk (an optional peer, loaded here
// only). The one place in the app that reads ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and ANTHROPIC_MODEL.
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { Environment } from '../../src/model/config.js';
import type { ChatModel } from '../../src/model/types.js';
import type { ProviderSettings } from './provider.js';

const setting = (env: Environment, name: string): string | undefined => env[name]?.trim() || undefined;

/** The model the settings name (else ANTHROPIC_MODEL, else Anthropic's default) on their server (else ANTHROPIC_BASE_URL). */
export async function anthropicProvider(settings: ProviderSettings, env: Environment): Promise<ChatModel> {
  const apiKey = settings.apiKey ?? setting(env, 'ANTHROPIC_API_KEY');
  const baseUrl = settings.baseUrl ?? setting(env, 'ANTHROPIC_BASE_URL');
  if (apiKey === undefined && baseUrl === undefined)
    throw new StageloopError(
      'config',
      'ANTHROPIC_API_KEY is not set: the anthropic provider needs it (or ANTHROPIC_BASE_URL for a server of your own); export it, or choose another --provider',
    );
  if (baseUrl !== undefined && !(URL.canParse(baseUrl) && /^https?:$/.test(new URL(baseUrl).protocol)))
    throw new StageloopError(
      'config',
      `${settings.baseUrl !== undefined ? '--base-url' : 'ANTHROPIC_BASE_URL'} is not an http(s) URL: "${baseUrl}"`,
    );
  const { AnthropicModel, defaultAnthropicModel } = await import('../../src/model/anthropic-model.js');
  return new AnthropicModel({
    model: settings.name ?? setting(env, 'ANTHROPIC_MODEL') ?? defaultAnthropicModel,
    ...(apiKey !== undefined && { apiKey }),
    ...(baseUrl !== undefined && { baseUrl: baseUrl.replace(/\/+$/, '') }),
  });
}
