// The `offline` provider row: the built-in model that only does arithmetic; it needs no server, key or name.
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { Environment } from '../../src/model/config.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import type { ChatModel } from '../../src/model/types.js';
import type { ProviderSettings } from './provider.js';
import { checkAgentSettings } from './openai.js';

/** The offline model; a model name asks for a server this row does not have. */
export async function offlineProvider(settings: ProviderSettings, env: Environment): Promise<ChatModel> {
  if (settings.name !== undefined) {
    throw new StageloopError(
      'usage',
      `--model ${settings.name} needs a model server: set OPENAI_API_KEY, or pass --base-url (drop --offline)`,
    );
  }
  await checkAgentSettings(env);
  return new OfflineModel();
}
