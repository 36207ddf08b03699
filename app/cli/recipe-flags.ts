// The flags of `stageloop run` (and chat, submit) as a run recipe. Config-file secrets become `${VAR}` templates;
// a literal secret in the file is lent to this process under a variable of its own and never recorded.
import type { JsonObject } from '../../src/common/json.js';
import type { Environment } from '../../src/model/config.js';
import { sessionScope } from '../../src/sessions/types.js';
import { makeRecipe, type McpServerRecipe, type RunRecipe, type RunRecipeInput } from '../recipe.js';
import type { SecretSource } from '../recipe-secrets.js';
import { templateEnvironment } from '../config.js';
import { loadWorkspace } from '../workspace-files.js';
import { cliConfig, outputSchemaFrom } from '../ingredients.js';
import type { RunFlags } from './args.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

export interface FlagsRecipe {
  recipe: RunRecipe;
  /** The environment to assemble with: the given one plus the variables standing for literal config secrets. */
  env: Environment;
}

/** What the flags (and the config file in `cwd`, unless `cwd` is undefined) say a run is. */
export async function recipeFromFlags(
  flags: RunFlags,
  env: Environment,
  cwd: string | undefined = process.cwd(),
): Promise<FlagsRecipe> {
  const lent: Record<string, string> = {};
  const secrets: Record<string, SecretSource> = {};
  const config = cwd === undefined ? undefined : await cliConfig(flags, templateEnvironment(), cwd);
  // A literal is lent under a variable of its own; the recipe records the file and field it came from, not the value.
  const template = (value: string, field: string[]) => {
    if (value.includes('${')) return value;
    const variable = `STAGELOOP_SECRET_${field
      .join('_')
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')}`;
    lent[variable] = value;
    if (config?.file !== undefined) secrets[variable] = { file: config.file, field };
    return `\${${variable}}`;
  };
  const templated = (values: Readonly<Record<string, string>> | undefined, field: string[]) =>
    values === undefined
      ? undefined
      : Object.fromEntries(Object.entries(values).map(([key, value]) => [key, template(value, [...field, key])]));
  const mcpServers: McpServerRecipe[] = (config?.mcpServers ?? []).map((server) => {
    const { name } = server;
    // The config's per-server settings are part of the run: a resumed or replayed run keeps them.
    const timeout = server.timeout ?? flags.mcpTimeout;
    const settings = {
      ...(timeout !== undefined && { timeout }),
      ...(server.roots !== undefined && { roots: server.roots.map((root) => ({ ...root })) }),
      ...(server.approveTools !== undefined && { approveTools: [...server.approveTools] }),
      ...(server.sampling !== undefined && { sampling: server.sampling }),
    };
    if ('url' in server) {
      const headers = templated(server.headers, ['mcpServers', name, 'headers']);
      return { name, url: server.url, ...(headers !== undefined && { headers }), ...settings };
    }
    const serverEnv = templated(server.env, ['mcpServers', name, 'env']);
    return {
      name,
      ...settings,
      command: server.command,
      ...(server.args && { args: [...server.args] }),
      ...(serverEnv !== undefined && { env: serverEnv }),
      ...(server.cwd !== undefined && { cwd: server.cwd }),
    };
  });
  const fallbackServers = (config?.fallback ?? []).map((entry, index) => ({
    model: entry.model,
    ...(entry.baseUrl !== undefined && { baseUrl: entry.baseUrl }),
    ...(entry.apiKey !== undefined && { apiKey: template(entry.apiKey, ['fallback', String(index), 'apiKey']) }),
  }));
  const outputSchema: JsonObject | undefined = (await outputSchemaFrom(flags.outputSchema))?.json;
  const session = flags.session === undefined ? undefined : sessionScope(flags.session, flags.user);
  // The context files and skills are read now and recorded: a resumed or replayed run sees them as they were.
  const workspace =
    cwd === undefined
      ? undefined
      : loadWorkspace({
          cwd,
          contextFiles: [
            ...flags.contextFiles.map((path) => ({ path, given: `--context-file ${path}` })),
            ...(config?.contextFiles ?? []).map((path) => ({ path, given: `${config!.file}: contextFiles: ${path}` })),
          ],
          skillFolders: [
            ...flags.skills.map((path) => ({ path, given: `--skills ${path}` })),
            ...(config?.skills ?? []).map((path) => ({ path, given: `${config!.file}: skills: ${path}` })),
          ],
        });
  const recipe = makeRecipe({
    pipeline: flags.pipeline,
    model: {
      ...(flags.offline && { offline: true }),
      ...(flags.provider !== undefined && { provider: flags.provider }),
      ...(flags.model !== undefined && { name: flags.model }),
      ...(flags.baseUrl !== undefined && { baseUrl: flags.baseUrl }),
      fallbacks: flags.fallbackModels ?? [],
      fallbackServers,
    },
    guards: flags.guards,
    approvals: {
      ...(flags.approveTools !== undefined && { tools: flags.approveTools }),
      // --budget-mode ask: a spent budget asks, as --ask-on-limit.
      askOnLimit: flags.askOnLimit === true || flags.guards.budgetMode === 'ask',
      ...(flags.taintPolicy !== undefined && { taintPolicy: flags.taintPolicy }),
    },
    ...(outputSchema !== undefined && { outputSchema }),
    ...(flags.maxParallelSteps !== undefined && { maxParallelSteps: flags.maxParallelSteps }),
    ...(session !== undefined && { session: { name: session.session, user: session.user } }),
    mcpServers,
    secrets,
    agents: Object.fromEntries((config?.agents ?? []).map(({ name, ...agent }) => [name, agent])),
    ...(flags.agent !== undefined && { agent: flags.agent }),
    ...(workspace !== undefined && { workspace }),
    tracing: { ...(flags.trace !== undefined && { exporter: flags.trace }), content: flags.traceContent === true },
  });
  if (flags.agent !== undefined && recipe.agents[flags.agent] === undefined) {
    const known = Object.keys(recipe.agents);
    throw new StageloopError(
      'usage',
      `--agent ${flags.agent}: no such agent${config?.file ? ` in ${config.file}` : ''}: ${known.length > 0 ? `the agents are ${known.join(', ')}` : 'define agents in stageloop.config.json under "agents"'}`,
    );
  }
  return { recipe, env: { ...env, ...lent } };
}
