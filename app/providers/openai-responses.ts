// The `openai-responses` provider row: OpenAI's Responses API, for reasoning models that keep their reasoning across
// turns. Same environment as the openai row (OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL), read by that row's code.
import type { Environment } from '../../src/model/config.js';
import type { ChatModel } from '../../src/model/types.js';
import { openAIServer } from './openai.js';
import type { ProviderSettings } from './provider.js';

export async function openAIResponsesProvider(settings: ProviderSettings, env: Environment): Promise<ChatModel> {
  const [options, { OpenAIResponsesModel }] = await Promise.all([
    openAIServer(settings, env),
    import('../../src/model/openai-responses-model.js'),
  ]);
  const { model, baseUrl, apiKey, temperature, maxRetries, timeoutMs, headers } = options;
  return new OpenAIResponsesModel({
    model,
    ...(baseUrl !== undefined && { baseUrl }),
    ...(apiKey !== undefined && { apiKey }),
    ...(temperature !== undefined && { temperature }),
    ...(maxRetries !== undefined && { maxRetries }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(headers !== undefined && { headers }),
  });
}
