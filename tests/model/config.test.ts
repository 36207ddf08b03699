// modelConfigFromEnv: defaults, overrides, and one clear `config` error line for each bad setting.
import { describe, expect, it } from 'vitest';
import type { StageloopError } from '../../src/common/stageloop-error.js';
import { isRealModelConfigured, modelConfigFromEnv, openAIModelFromEnv } from '../../src/model/config.js';

function configError(run: () => unknown): StageloopError {
  try {
    run();
  } catch (error) {
    expect(error).toMatchObject({ code: 'config' });
    const configError = error as StageloopError;
    expect(configError.message).not.toContain('\n');
    expect(configError.message).not.toContain('sk-secret');
    return configError;
  }
  throw new Error('expected a config error');
}

describe('modelConfigFromEnv', () => {
  it('defaults to gpt-4o-mini on api.openai.com when only a key is set', () => {
    expect(modelConfigFromEnv({ OPENAI_API_KEY: 'sk-secret-1' })).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      apiKey: 'sk-secret-1',
    });
  });

  it('reads a local server, its model and a temperature', () => {
    const config = modelConfigFromEnv({
      OPENAI_BASE_URL: 'http://localhost:11434/v1/',
      OPENAI_MODEL: 'llama3.1:8b',
      AGENT_TEMPERATURE: '0.2',
    });
    expect(config).toEqual({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.1:8b', temperature: 0.2 });
  });

  it('reads the tool protocol and tool choice switches', () => {
    const config = modelConfigFromEnv({
      OPENAI_BASE_URL: 'http://localhost:8080/v1',
      OPENAI_MODEL: 'm',
      AGENT_TOOL_PROTOCOL: 'text',
      AGENT_TOOL_CHOICE: 'omit',
    });
    expect(config.toolProtocol).toBe('text');
    expect(config.sendToolChoice).toBe(false);
  });

  it('lets settings in code win over the environment', () => {
    const config = modelConfigFromEnv(
      { OPENAI_API_KEY: 'sk-secret-1', OPENAI_MODEL: 'gpt-4o', AGENT_TEMPERATURE: '1.5' },
      { model: 'gpt-4.1-mini', temperature: 0, maxRetries: 5 },
    );
    expect(config).toMatchObject({ model: 'gpt-4.1-mini', temperature: 0, maxRetries: 5, apiKey: 'sk-secret-1' });
  });

  it('treats blank variables as unset', () => {
    expect(isRealModelConfigured({ OPENAI_API_KEY: '  ', OPENAI_BASE_URL: '' })).toBe(false);
    expect(modelConfigFromEnv({ OPENAI_API_KEY: 'sk-secret-1', OPENAI_MODEL: ' ', AGENT_TEMPERATURE: '' }).model).toBe(
      'gpt-4o-mini',
    );
  });

  it.each([
    [
      { OPENAI_API_KEY: 'sk-secret-1', AGENT_TEMPERATURE: 'abc' },
      'AGENT_TEMPERATURE must be a number from 0 to 2, got "abc"',
    ],
    [
      { OPENAI_API_KEY: 'sk-secret-1', AGENT_TEMPERATURE: '2.5' },
      'AGENT_TEMPERATURE must be a number from 0 to 2, got "2.5"',
    ],
    [
      { OPENAI_API_KEY: 'sk-secret-1', AGENT_TEMPERATURE: '-0.1' },
      'AGENT_TEMPERATURE must be a number from 0 to 2, got "-0.1"',
    ],
    [
      { OPENAI_BASE_URL: 'localhost:11434', OPENAI_MODEL: 'm' },
      'OPENAI_BASE_URL must start with http:// or https://: "localhost:11434"',
    ],
    [
      { OPENAI_BASE_URL: 'not a url', OPENAI_MODEL: 'm' },
      'OPENAI_BASE_URL is not a URL: "not a url" (expected something like http://localhost:11434/v1)',
    ],
    [
      { OPENAI_BASE_URL: 'http://localhost:11434/v1' },
      'OPENAI_MODEL is required when OPENAI_BASE_URL is set (http://localhost:11434/v1): name the model the server serves, e.g. OPENAI_MODEL=llama3.1:8b',
    ],
    [{ OPENAI_BASE_URL: 'https://api.openai.com/v1' }, 'OPENAI_API_KEY is required for https://api.openai.com/v1'],
    [{}, 'no model configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL and OPENAI_MODEL for another server'],
    [
      { OPENAI_BASE_URL: 'http://h/v1', OPENAI_MODEL: 'm', AGENT_TOOL_PROTOCOL: 'json' },
      'AGENT_TOOL_PROTOCOL must be "native" or "text", got "json"',
    ],
  ])('rejects %j with one clear line', (env, message) => {
    expect(configError(() => modelConfigFromEnv(env)).message).toBe(message);
  });

  it('checks settings given in code too', () => {
    expect(
      configError(() => modelConfigFromEnv({ OPENAI_API_KEY: 'sk-secret-1' }, { temperature: 3 })).message,
    ).toContain('temperature');
    expect(
      configError(() => modelConfigFromEnv({ OPENAI_API_KEY: 'sk-secret-1' }, { timeoutMs: 0 })).message,
    ).toContain('timeoutMs');
    expect(
      configError(() => modelConfigFromEnv({ OPENAI_API_KEY: 'sk-secret-1' }, { maxRetries: 1.5 })).message,
    ).toContain('maxRetries');
  });
});

describe('isRealModelConfigured / openAIModelFromEnv', () => {
  it('needs a key or a base URL', () => {
    expect(isRealModelConfigured({})).toBe(false);
    expect(isRealModelConfigured({ OPENAI_API_KEY: 'sk-secret-1' })).toBe(true);
    expect(isRealModelConfigured({ OPENAI_BASE_URL: 'http://localhost:8000/v1' })).toBe(true);
  });

  it('builds a model that knows its provider and endpoint', () => {
    const model = openAIModelFromEnv({
      OPENAI_BASE_URL: 'http://localhost:8000/v1',
      OPENAI_MODEL: 'Qwen/Qwen2.5-7B-Instruct',
    });
    expect(model.provider).toBe('openai_compatible');
    expect(model.modelName).toBe('Qwen/Qwen2.5-7B-Instruct');
    expect(model.endpoint).toEqual({ address: 'localhost', port: 8000 });
  });
});
