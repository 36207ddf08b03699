// Model settings from the environment (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, AGENT_TEMPERATURE), checked up front.
import { StageloopError } from '../common/stageloop-error.js';
import { defaultOpenAIBaseUrl, OpenAIChatModel, type OpenAIChatModelOptions } from './openai-model.js';

/** The model used on api.openai.com when OPENAI_MODEL is not set: cheap, fast and good at tool calling. */
export const defaultOpenAIModel = 'gpt-4o-mini';

export type EnvironmentVariables = Record<string, string | undefined>;
/** The same type under its first name (the CLI imports it). */
export type Environment = EnvironmentVariables;

function setting(env: EnvironmentVariables, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function isOpenAIHost(baseUrl: string): boolean {
  return new URL(baseUrl).hostname === 'api.openai.com';
}

/** True when a real model is configured (a key or a base URL); otherwise the CLI falls back to the offline model. */
export function isRealModelConfigured(env: EnvironmentVariables = process.env): boolean {
  return setting(env, 'OPENAI_API_KEY') !== undefined || setting(env, 'OPENAI_BASE_URL') !== undefined;
}

function checkBaseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StageloopError(
      'config',
      `${source} is not a URL: "${value}" (expected something like http://localhost:11434/v1)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StageloopError('config', `${source} must start with http:// or https://: "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function parseTemperature(value: string): number {
  const temperature = Number(value);
  if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
    throw new StageloopError('config', `AGENT_TEMPERATURE must be a number from 0 to 2, got "${value}"`);
  }
  return temperature;
}

function checkOverrides(overrides: Partial<OpenAIChatModelOptions>): void {
  const { temperature, maxRetries, timeoutMs, model } = overrides;
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 2)) {
    throw new StageloopError('config', `temperature must be a number from 0 to 2, got ${String(temperature)}`);
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw new StageloopError('config', `maxRetries must be a whole number of at least 0, got ${String(maxRetries)}`);
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new StageloopError('config', `timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
  }
  if (model !== undefined && model.trim() === '') throw new StageloopError('config', 'model must not be empty');
}

/**
 * Builds OpenAIChatModel options from the environment; `overrides` (the same settings in code) win over it.
 * Defaults: base URL https://api.openai.com/v1; model gpt-4o-mini there (required elsewhere, since every server names
 * its models differently); temperature left to the server (reasoning models reject anything but their default).
 * Also reads AGENT_TOOL_PROTOCOL (native | text) and AGENT_TOOL_CHOICE (send | omit) for servers that need them.
 */
export function modelConfigFromEnv(
  env: EnvironmentVariables = process.env,
  overrides: Partial<OpenAIChatModelOptions> = {},
): OpenAIChatModelOptions {
  checkOverrides(overrides);
  const baseUrlSetting = overrides.baseUrl ?? setting(env, 'OPENAI_BASE_URL');
  const apiKey = overrides.apiKey ?? setting(env, 'OPENAI_API_KEY');
  if (baseUrlSetting === undefined && apiKey === undefined) {
    throw new StageloopError(
      'config',
      'no model configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL and OPENAI_MODEL for another server',
    );
  }
  const baseUrl =
    baseUrlSetting === undefined
      ? defaultOpenAIBaseUrl
      : checkBaseUrl(baseUrlSetting, overrides.baseUrl !== undefined ? 'baseUrl' : 'OPENAI_BASE_URL');
  const onOpenAI = isOpenAIHost(baseUrl);
  if (onOpenAI && apiKey === undefined) throw new StageloopError('config', `OPENAI_API_KEY is required for ${baseUrl}`);
  const model = overrides.model ?? setting(env, 'OPENAI_MODEL') ?? (onOpenAI ? defaultOpenAIModel : undefined);
  if (model === undefined) {
    throw new StageloopError(
      'config',
      `OPENAI_MODEL is required when OPENAI_BASE_URL is set (${baseUrl}): name the model the server serves, e.g. OPENAI_MODEL=llama3.1:8b`,
    );
  }
  const options: OpenAIChatModelOptions = { ...overrides, model, baseUrl };
  if (apiKey !== undefined) options.apiKey = apiKey;
  const temperature = setting(env, 'AGENT_TEMPERATURE');
  if (overrides.temperature === undefined && temperature !== undefined)
    options.temperature = parseTemperature(temperature);
  const toolProtocol = setting(env, 'AGENT_TOOL_PROTOCOL');
  if (overrides.toolProtocol === undefined && toolProtocol !== undefined) {
    if (toolProtocol !== 'native' && toolProtocol !== 'text')
      throw new StageloopError('config', `AGENT_TOOL_PROTOCOL must be "native" or "text", got "${toolProtocol}"`);
    options.toolProtocol = toolProtocol;
  }
  const toolChoice = setting(env, 'AGENT_TOOL_CHOICE');
  if (overrides.sendToolChoice === undefined && toolChoice !== undefined) {
    if (toolChoice !== 'send' && toolChoice !== 'omit')
      throw new StageloopError('config', `AGENT_TOOL_CHOICE must be "send" or "omit", got "${toolChoice}"`);
    options.sendToolChoice = toolChoice === 'send';
  }
  return options;
}

/** modelConfigFromEnv, then the model itself. Throws a `config` StageloopError before any request is made. */
export function openAIModelFromEnv(
  env: EnvironmentVariables = process.env,
  overrides: Partial<OpenAIChatModelOptions> = {},
): OpenAIChatModel {
  return new OpenAIChatModel(modelConfigFromEnv(env, overrides));
}
