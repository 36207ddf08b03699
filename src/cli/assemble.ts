// Assembles what a CLI run needs: the model, the tools, the pipeline with its guards. The one place that joins
// src/, stages/ and pipelines/.
import type { Pipeline } from '../engine/pipeline.js';
import { ConfigError, isRealModelConfigured, openAIModelFromEnv, type Environment } from '../model/config.js';
import { OfflineModel } from '../model/offline-model.js';
import type { ChatModel } from '../model/types.js';
import { calculatorTool } from '../tools/calculator.js';
import type { Tool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/registry.js';
import { webSearchTool } from '../tools/web-search.js';
import { builtInPipelines } from '../../pipelines/index.js';
import { applyGuards } from '../../stages/guards.js';
import { UsageError, type GuardFlags } from './args.js';

export interface ModelChoice {
  model: ChatModel;
  /** One line for stderr saying which model is in use and why. */
  notice: string;
  offline: boolean;
}

/** `--offline`, or no key and no base URL: the offline model. Flags win over environment variables. */
export function chooseModel(flags: { offline: boolean; model?: string; baseUrl?: string }, env: Environment): ModelChoice {
  const wantsServer = flags.baseUrl !== undefined || (!flags.offline && isRealModelConfigured(env));
  if (flags.offline || !wantsServer) {
    if (flags.model !== undefined) {
      throw new ConfigError(`--model ${flags.model} needs a model server: set OPENAI_API_KEY, or pass --base-url (drop --offline)`);
    }
    const reason = flags.offline ? '--offline' : 'no OPENAI_API_KEY or OPENAI_BASE_URL set';
    return { model: new OfflineModel(), notice: `using the offline model stageloop-offline (${reason}); it only does arithmetic`, offline: true };
  }
  const overrides: { baseUrl?: string; model?: string } = {};
  if (flags.baseUrl !== undefined) overrides.baseUrl = flags.baseUrl;
  if (flags.model !== undefined) overrides.model = flags.model;
  const model = openAIModelFromEnv(env, overrides);
  const where = model.endpoint ? ` at ${model.endpoint.address}:${model.endpoint.port}` : '';
  return { model, notice: `using model ${model.modelName}${where}`, offline: false };
}

/** The calculator always; web search only when a SerpApi key is set, so a model never calls a tool that cannot work. */
export function defaultTools(env: Environment): ToolRegistry {
  const tools: Tool[] = [calculatorTool()];
  const apiKey = env.SERPAPI_API_KEY?.trim();
  if (apiKey) tools.push(webSearchTool(env.SERPAPI_BASE_URL ? { apiKey, baseUrl: env.SERPAPI_BASE_URL } : { apiKey }));
  return new ToolRegistry(tools);
}

export const pipelineNames = Object.keys(builtInPipelines);

/** A built-in pipeline with the guards the flags ask for; --max-iterations is a budget, so applyGuards handles it. */
export function buildPipeline(name: string, flags: GuardFlags, modelName?: string): Pipeline {
  const factory = builtInPipelines[name];
  if (factory === undefined) throw new UsageError(`unknown pipeline "${name}": choose one of ${pipelineNames.join(', ')}`);
  return applyGuards(factory(), flags, modelName === undefined ? {} : { modelName });
}
