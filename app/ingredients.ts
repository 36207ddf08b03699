// The ingredients assemble.ts joins into a run: the model's fallbacks (built by the provider table's rows), the
// tools (built-in and MCP), the output schema. Heavy modules load only when a run uses them.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ZodType } from 'zod';
import type { JsonObject } from '../src/common/json.js';
import { messageOf } from '../src/common/error-message.js';
import type { Environment } from '../src/model/config.js';
import { calculatorTool } from '../src/tools/calculator.js';
import type { CalculatorWorkerHost } from '../src/tools/calculator-host.js';
import type { Tool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { schemaOfJson } from './output-schema.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import type { StageloopConfig } from './config.js';
import type { ModelChoice, ProviderTable } from './providers.js';
import type { RunRecipe } from './recipe.js';
import type { McpToolsOptions } from '../src/tools/mcp/mcp-tools.js';

const setting = (env: Environment, name: string): string | undefined => env[name]?.trim() || undefined;

/** The calculator (on the given worker process) always; web search only when a SerpApi key is set, so a model never calls a tool that cannot work. */
export async function defaultTools(env: Environment, calculatorHost?: CalculatorWorkerHost): Promise<ToolRegistry> {
  const tools: Tool[] = [calculatorTool({}, calculatorHost)];
  const apiKey = setting(env, 'SERPAPI_API_KEY');
  if (apiKey) {
    const { webSearchTool } = await import('../src/tools/web-search.js');
    tools.push(webSearchTool(env.SERPAPI_BASE_URL ? { apiKey, baseUrl: env.SERPAPI_BASE_URL } : { apiKey }));
  }
  return new ToolRegistry(tools);
}

export interface McpFlags {
  mcpConfig?: string;
  mcp: readonly string[];
}

/** stageloop.config.json (or --mcp-config FILE) and --mcp: read only when one of them is there. */
export async function cliConfig(
  flags: McpFlags,
  env: Environment,
  cwd = process.cwd(),
): Promise<StageloopConfig | undefined> {
  if (flags.mcpConfig === undefined && flags.mcp.length === 0 && !existsSync(resolve(cwd, 'stageloop.config.json')))
    return undefined;
  const { loadStageloopConfig } = await import('./config.js');
  const config = loadStageloopConfig({
    cwd,
    env,
    inline: flags.mcp,
    ...(flags.mcpConfig !== undefined && { configFile: flags.mcpConfig }),
  });
  for (const warning of config.warnings ?? []) process.stderr.write(`warning: ${warning}\n`);
  return config;
}

/** The built-in tools plus every configured MCP server's (a name given twice is an error at start). */
export async function toolsWithMcp(
  tools: ToolRegistry,
  config: StageloopConfig | undefined,
  options: McpToolsOptions = {},
): Promise<ToolRegistry> {
  if (config === undefined || config.mcpServers.length === 0) return tools;
  const { loadMcpTools } = await import('../src/tools/mcp/index.js');
  return new ToolRegistry([
    ...tools.names.map((name) => tools.get(name)!),
    ...(await loadMcpTools(config.mcpServers, options)),
  ]);
}

/** The recipe's --fallback-model names (same server) and fallback servers after the chosen model, built by its row. */
export async function withFallbacks(
  choice: ModelChoice,
  settings: RunRecipe['model'],
  env: Environment,
  table?: ProviderTable,
): Promise<ModelChoice> {
  const { fallbacks, fallbackServers, baseUrl } = settings;
  if (fallbacks.length === 0 && fallbackServers.length === 0) return choice;
  if (choice.offline)
    throw new StageloopError(
      'usage',
      '--fallback-model and a fallback list need a model server: set OPENAI_API_KEY or pass --base-url',
    );
  const [{ fallbackModel }, { expandVariables }, { providerRow }] = await Promise.all([
    import('../src/model/fallback-model.js'),
    import('./config.js'),
    import('./providers.js'),
  ]);
  const row = providerRow(choice.provider, table);
  const models = [choice.model];
  for (const name of fallbacks) models.push(await row({ name, ...(baseUrl !== undefined && { baseUrl }) }, env));
  for (const entry of fallbackServers) {
    // The recipe holds a `${VAR}` template for a server's key, never the key.
    const apiKey =
      entry.apiKey === undefined
        ? undefined
        : expandVariables(entry.apiKey, `fallback model ${entry.model}: apiKey`, env);
    models.push(
      await row(
        {
          name: entry.model,
          ...(entry.baseUrl !== undefined && { baseUrl: entry.baseUrl }),
          ...(apiKey !== undefined && { apiKey }),
        },
        env,
      ),
    );
  }
  return {
    ...choice,
    model: fallbackModel(models),
    notice: `${choice.notice}, falling back to ${models
      .slice(1)
      .map((model) => model.modelName)
      .join(', ')}`,
  };
}

/** --output-schema FILE: the JSON Schema read and turned into the zod schema the final-output stage validates with. */
export async function outputSchemaFrom(
  file: string | undefined,
): Promise<{ json: JsonObject; schema: ZodType } | undefined> {
  if (file === undefined) return undefined;
  const { readFileSync } = await import('node:fs');
  let json: JsonObject;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
  } catch (error) {
    throw new StageloopError(
      'usage',
      `--output-schema ${file}: ${messageOf(error).split('\n')[0]}: give a JSON Schema file, e.g. {"type":"object","properties":{"answer":{"type":"number"}}}`,
    );
  }
  return { json, schema: schemaOfJson(json, `--output-schema ${file}`) };
}

export { schemaOfJson };
