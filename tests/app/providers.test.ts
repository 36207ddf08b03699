// The provider table: a recipe's model is built by a row of app/providers.ts; a new provider is one more row, the
// openai row is the only one that reads OPENAI_*, and a recipe that names none is decided as it always was.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assemble } from '../../app/assemble.js';
import { chooseModel, providers, type ProviderTable } from '../../app/providers.js';
import { openAIProvider } from '../../app/providers/openai.js';
import type { ProviderSettings } from '../../app/providers/provider.js';
import { makeRecipe } from '../../app/recipe.js';
import { codeOf } from '../../src/common/stageloop-error.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';

const server = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'env-model' };

/** A provider as a newcomer would add one: a row whose models answer from a script, remembering what built them. */
function scriptedRow(built: ProviderSettings[]): ProviderTable {
  return {
    ...providers,
    scripted: async (settings) => {
      built.push(settings);
      return new ScriptedModel([{ content: `answered by ${settings.name}` }], {
        modelName: settings.name ?? 'scripted-default',
      });
    },
  };
}

describe('the provider table', () => {
  it('runs a recipe on a provider added as one row: the model, its fallbacks and the notice come from that row', async () => {
    const built: ProviderSettings[] = [];
    const recipe = makeRecipe({
      model: {
        provider: 'scripted',
        name: 'first',
        fallbacks: ['second'],
        fallbackServers: [{ model: 'far', baseUrl: 'http://127.0.0.1:9/v2', apiKey: '${FAR_KEY}' }],
      },
      tools: { only: [] },
    });
    const run = await assemble(recipe, { FAR_KEY: 'far-secret' }, { providers: scriptedRow(built) });
    try {
      expect(built.map(({ name, baseUrl, apiKey }) => ({ name, baseUrl, apiKey }))).toEqual([
        { name: 'first', baseUrl: undefined, apiKey: undefined },
        { name: 'second', baseUrl: undefined, apiKey: undefined },
        { name: 'far', baseUrl: 'http://127.0.0.1:9/v2', apiKey: 'far-secret' },
      ]);
      expect(run.notice).toBe('using model first, falling back to second, far');
      expect(run.offline).toBe(false);
      expect(run.recipe.model).toMatchObject({ provider: 'scripted', offline: false });
      expect(JSON.stringify(run.record)).not.toContain('far-secret');
      const result = await runPipeline(run.pipeline, { task: 'Say hello' }, { deps: run.deps });
      expect(result.answer).toBe('answered by first');
    } finally {
      await run.close();
    }
  });

  it('refuses a provider no row has, and a provider that contradicts `offline`', async () => {
    const unknown = await chooseModel({ provider: 'nowhere' }, {}).catch((error: unknown) => error);
    expect(codeOf(unknown)).toBe('config');
    expect((unknown as Error).message).toBe(
      'model.provider "nowhere" is not a provider: choose one of openai, openai-responses, anthropic, offline',
    );
    await expect(chooseModel({ provider: 'openai', offline: true }, server)).rejects.toThrow(
      /model.offline is true but model.provider is "openai"/,
    );
  });

  it('the openai row reads OPENAI_* (the settings win), and refuses to start with no server', async () => {
    const fromEnv = await openAIProvider({}, server);
    expect(fromEnv.modelName).toBe('env-model');
    expect(fromEnv.endpoint).toEqual({ address: '127.0.0.1', port: 9 });
    const fromSettings = await openAIProvider({ name: 'set-model', baseUrl: 'http://127.0.0.1:8/v1' }, server);
    expect([fromSettings.modelName, fromSettings.endpoint?.port]).toEqual(['set-model', 8]);
    const none = await openAIProvider({}, {}).catch((error: unknown) => error);
    expect(codeOf(none)).toBe('config');
    expect((none as Error).message).toMatch(/^OPENAI_API_KEY is not set: this run uses model gpt-4o-mini on OpenAI/);
  });

  it('a recipe naming no provider: OpenAI when the environment names a server, else the offline row, as before', async () => {
    expect(await chooseModel({}, server)).toMatchObject({
      provider: 'openai',
      offline: false,
      notice: 'using model env-model at 127.0.0.1:9',
    });
    expect(await chooseModel({}, { OPENAI_API_KEY: '  ' })).toMatchObject({
      provider: 'offline',
      offline: true,
      notice:
        'using the offline model stageloop-offline (no OPENAI_API_KEY or OPENAI_BASE_URL set); it only does arithmetic',
    });
    expect((await chooseModel({ offline: true }, server)).notice).toBe(
      'using the offline model stageloop-offline (--offline); it only does arithmetic',
    );
    expect((await chooseModel({ provider: 'offline' }, server)).offline).toBe(true);
    expect((await chooseModel({ baseUrl: 'http://127.0.0.1:7/v1', name: 'flag-model' }, {})).notice).toBe(
      'using model flag-model at 127.0.0.1:7',
    );
    // What the environment decided is recorded: the row, and `offline` as recordings made before the table have it.
    const run = await assemble(makeRecipe({}), {});
    expect(run.recipe.model).toEqual({ provider: 'offline', offline: true, fallbacks: [], fallbackServers: [] });
    await run.close();
  });

  it('STAGELOOP_PROVIDER names the row when the recipe names none and leaves `offline` open', async () => {
    const env = {
      ...server,
      STAGELOOP_PROVIDER: 'anthropic',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:6',
      ANTHROPIC_MODEL: 'claude-x',
    };
    expect(await chooseModel({}, env)).toMatchObject({
      provider: 'anthropic',
      notice: 'using model claude-x at 127.0.0.1:6',
    });
    expect((await chooseModel({ provider: 'openai' }, env)).provider).toBe('openai');
    expect((await chooseModel({ offline: true }, env)).provider).toBe('offline');
    // A recording made before providers were recorded (offline: false, no provider) resumes on the row it ran on.
    expect((await chooseModel({ offline: false }, env)).provider).toBe('openai');
    await expect(chooseModel({}, { STAGELOOP_PROVIDER: 'claude' })).rejects.toThrow(
      'STAGELOOP_PROVIDER "claude" is not a provider: choose one of openai, openai-responses, anthropic, offline',
    );
    // The resolved row is recorded, so resume and replay use it whatever the environment says then.
    const run = await assemble(makeRecipe({ tools: { only: [] } }), env);
    expect(run.recipe.model).toMatchObject({ provider: 'anthropic', offline: false });
    await run.close();
  });

  it('the anthropic and openai-responses rows: their environment, the settings winning, and no server refused', async () => {
    const anthropic = providers.anthropic!;
    const fromEnv = await anthropic({}, { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_MODEL: 'claude-env' });
    expect([fromEnv.provider, fromEnv.modelName, fromEnv.endpoint]).toEqual([
      'anthropic',
      'claude-env',
      { address: 'api.anthropic.com', port: 443 },
    ]);
    const fromSettings = await anthropic(
      { name: 'claude-set', baseUrl: 'http://127.0.0.1:5/' },
      { ANTHROPIC_MODEL: 'x' },
    );
    expect([fromSettings.modelName, fromSettings.endpoint?.port]).toEqual(['claude-set', 5]);
    await expect(anthropic({}, server)).rejects.toThrow(
      /^ANTHROPIC_API_KEY is not set: the anthropic provider needs it/,
    );
    await expect(anthropic({ baseUrl: 'ftp://x' }, {})).rejects.toThrow('--base-url is not an http(s) URL: "ftp://x"');
    const responses = await providers['openai-responses']!({}, server);
    expect([responses.constructor.name, responses.modelName, responses.endpoint?.port]).toEqual([
      'OpenAIResponsesModel',
      'env-model',
      9,
    ]);
    await expect(providers['openai-responses']!({}, {})).rejects.toThrow(/^OPENAI_API_KEY is not set/);
  });

  it('reads OPENAI_* nowhere in the app but the openai row (messages and help may name them)', () => {
    const root = fileURLToPath(new URL('../../app/', import.meta.url));
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const reads = files.filter((file) => {
      const code = readFileSync(join(root, file), 'utf8')
        .replace(/\/\*[^]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      // env.OPENAI_X, env['OPENAI_X'], or a helper given (env, 'OPENAI_X').
      return /\benv(?:\.OPENAI_|\[['"]OPENAI_)|\(\s*env\s*,\s*['"]OPENAI_/.test(code);
    });
    expect(reads.map((file) => join('app', file))).toEqual(['app/providers/openai.ts']);
  });
});
