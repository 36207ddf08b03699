// The ingredients assemble.ts joins into a run: the model (with fallbacks), the tools (built-in and MCP), the output
// schema. The model server modules load only when a server is used, so offline runs skip them.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ZodType } from 'zod';
import type { JsonObject } from '../src/common/json.js';
import { messageOf } from '../src/common/error-message.js';
import type { Environment } from '../src/model/config.js';
import { OfflineModel } from '../src/model/offline-model.js';
import type { ChatModel } from '../src/model/types.js';
import { calculatorTool } from '../src/tools/calculator.js';
import type { CalculatorWorkerHost } from '../src/tools/calculator-host.js';
import type { Tool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { schemaOfJson } from './output-schema.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import type { StageloopConfig } from './config.js';

export interface ModelChoice {
  model: ChatModel;
  /** One line for stderr saying which model is in use and why. */
  notice: string;
  offline: boolean;
}

const setting = (env: Environment, name: string): string | undefined => env[name]?.trim() || undefined;
const agentSettings = ['AGENT_TEMPERATURE', 'AGENT_TOOL_PROTOCOL', 'AGENT_TOOL_CHOICE'];

/** The AGENT_* settings are checked by the adapter's own rules even when the offline model ignores them, so a typo fails now. */
async function checkAgentSettings(env: Environment): Promise<void> {
  const given = Object.fromEntries(agentSettings.flatMap((name) => (setting(env, name) === undefined ? [] : [[name, env[name]]])));
  if (Object.keys(given).length === 0) return;
  const { modelConfigFromEnv } = await import('../src/model/config.js');
  modelConfigFromEnv(given, { baseUrl: 'http://127.0.0.1/v1', model: 'offline' });
}

/** A --base-url other than OpenAI's needs a model name; say which flag gives it (an invalid URL is reported by the config). */
function requireModelName(flags: { model?: string; baseUrl?: string }, env: Environment): void {
  if (flags.baseUrl === undefined || flags.model !== undefined || setting(env, 'OPENAI_MODEL') !== undefined) return;
  if (!URL.canParse(flags.baseUrl) || new URL(flags.baseUrl).hostname === 'api.openai.com') return;
  throw new StageloopError('usage', `--base-url ${flags.baseUrl} needs a model name: pass --model NAME (or set OPENAI_MODEL), e.g. --model llama3.1:8b`);
}

/** `--offline`, or no key and no base URL: the offline model. Flags win over environment variables. */
export async function chooseModel(flags: { offline: boolean; model?: string; baseUrl?: string }, env: Environment): Promise<ModelChoice> {
  const configured = setting(env, 'OPENAI_API_KEY') !== undefined || setting(env, 'OPENAI_BASE_URL') !== undefined;
  const wantsServer = flags.baseUrl !== undefined || (!flags.offline && configured);
  if (flags.offline || !wantsServer) {
    if (flags.model !== undefined) {
      throw new StageloopError('usage', `--model ${flags.model} needs a model server: set OPENAI_API_KEY, or pass --base-url (drop --offline)`);
    }
    await checkAgentSettings(env);
    const reason = flags.offline ? '--offline' : 'no OPENAI_API_KEY or OPENAI_BASE_URL set';
    return { model: new OfflineModel(), notice: `using the offline model stageloop-offline (${reason}); it only does arithmetic`, offline: true };
  }
  requireModelName(flags, env);
  const overrides: { baseUrl?: string; model?: string } = {};
  if (flags.baseUrl !== undefined) overrides.baseUrl = flags.baseUrl;
  if (flags.model !== undefined) overrides.model = flags.model;
  const { openAIModelFromEnv } = await import('../src/model/config.js');
  const model = openAIModelFromEnv(env, overrides);
  const where = model.endpoint ? ` at ${model.endpoint.address}:${model.endpoint.port}` : '';
  return { model, notice: `using model ${model.modelName}${where}`, offline: false };
}

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
export async function cliConfig(flags: McpFlags, env: Environment, cwd = process.cwd()): Promise<StageloopConfig | undefined> {
  if (flags.mcpConfig === undefined && flags.mcp.length === 0 && !existsSync(resolve(cwd, 'stageloop.config.json'))) return undefined;
  const { loadStageloopConfig } = await import('./config.js');
  return loadStageloopConfig({ cwd, env, inline: flags.mcp, ...(flags.mcpConfig !== undefined && { configFile: flags.mcpConfig }) });
}

/** The built-in tools plus every configured MCP server's (a name given twice is an error at start). */
export async function toolsWithMcp(tools: ToolRegistry, config: StageloopConfig | undefined): Promise<ToolRegistry> {
  if (config === undefined || config.mcpServers.length === 0) return tools;
  const { loadMcpTools } = await import('../src/tools/mcp/index.js');
  return new ToolRegistry([...tools.names.map((name) => tools.get(name)!), ...(await loadMcpTools(config.mcpServers))]);
}

/** --fallback-model NAME (same server) and the config file's `fallback` list (other servers) after the chosen model. */
export async function withFallbacks(choice: ModelChoice, names: readonly string[], config: StageloopConfig | undefined, env: Environment, baseUrl?: string): Promise<ModelChoice> {
  const entries = config?.fallback ?? [];
  if (names.length === 0 && entries.length === 0) return choice;
  if (choice.offline) throw new StageloopError('usage', '--fallback-model and a fallback list need a model server: set OPENAI_API_KEY or pass --base-url');
  const [{ fallbackModel }, { openAIModelFromEnv }] = await Promise.all([import('../src/model/fallback-model.js'), import('../src/model/config.js')]);
  const sameServer = names.map((model) => openAIModelFromEnv(env, { model, ...(baseUrl !== undefined && { baseUrl }) }));
  const otherServers = entries.map((entry) =>
    openAIModelFromEnv(entry.apiKey !== undefined ? { ...env, OPENAI_API_KEY: entry.apiKey } : env, { model: entry.model, ...(entry.baseUrl !== undefined && { baseUrl: entry.baseUrl }) }),
  );
  const models = [choice.model, ...sameServer, ...otherServers];
  return { ...choice, model: fallbackModel(models), notice: `${choice.notice}, falling back to ${models.slice(1).map((model) => model.modelName).join(', ')}` };
}

/** --output-schema FILE: the JSON Schema read and turned into the zod schema the final-output stage validates with. */
export async function outputSchemaFrom(file: string | undefined): Promise<{ json: JsonObject; schema: ZodType } | undefined> {
  if (file === undefined) return undefined;
  const { readFileSync } = await import('node:fs');
  let json: JsonObject;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
  } catch (error) {
    throw new StageloopError('usage', `--output-schema ${file}: ${messageOf(error).split('\n')[0]}: give a JSON Schema file, e.g. {"type":"object","properties":{"answer":{"type":"number"}}}`);
  }
  return { json, schema: schemaOfJson(json, `--output-schema ${file}`) };
}

export { schemaOfJson };
