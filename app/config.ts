// The config file (stageloop.config.json or --mcp-config FILE) and --mcp NAME=COMMAND: MCP servers in the
// `mcpServers` shape Claude Desktop, Cursor and VS Code use, fallback models, and agents. Errors never show a value.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Environment } from '../src/model/config.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { messageOf } from '../src/common/error-message.js';
import type { McpServer } from '../src/tools/mcp/types.js';
import { checkUrl, configObject, configText, expandVariables } from './config-values.js';
import { parseInlineServer, serverEntry } from './mcp-server-config.js';

export { expandVariables } from './config-values.js';
export { parseInlineServer } from './mcp-server-config.js';

export const CONFIG_FILE_NAME = 'stageloop.config.json';

/** Flags for parseArgs (node:util) that `run` and `tools` share. */
export const mcpFlagOptions = {
  'mcp-config': { type: 'string' },
  mcp: { type: 'string', multiple: true },
} as const;

/** A model on another server to fall back to, from the config file's `fallback` list. */
export interface FallbackModelEntry {
  model: string;
  baseUrl?: string;
  apiKey?: string;
}

/** An agent of the config file's `agents` object: a pipeline with its own instructions, tools and agents. */
export interface AgentConfig {
  name: string;
  description: string;
  pipeline: string;
  /** A model name on the run's server; absent: the run's model. */
  model?: string;
  /** The agent's system prompt, as is. */
  instructions: string;
  /** Tool names (built-in, MCP, or another agent's name). */
  tools: string[];
  /** Agents it may call, offered as tools named after them. */
  agents: string[];
  /** Agents it may hand the rest of the run to, offered as tools `transfer_to_NAME`. */
  handoffs: string[];
}

export interface StageloopConfig {
  /** The file read, when one was. */
  file?: string;
  mcpServers: McpServer[];
  fallback: FallbackModelEntry[];
  agents: AgentConfig[];
  /** `contextFiles`: more context files for every run (relative to the file's folder). */
  contextFiles?: string[];
  /** `skills`: more folders of NAME/SKILL.md skills (relative to the file's folder). */
  skills?: string[];
  /** What was read but ignored (another client's keys), one line each, for stderr. */
  warnings?: string[];
}

export interface ConfigSources {
  /** --mcp-config FILE: must exist. Without it, stageloop.config.json in `cwd` is read when present. */
  configFile?: string;
  /** --mcp values, NAME=COMMAND ARGS... or NAME=URL. */
  inline?: readonly string[];
  cwd: string;
  env: Environment;
}

export function loadStageloopConfig(sources: ConfigSources): StageloopConfig {
  const file =
    sources.configFile !== undefined
      ? resolve(sources.cwd, sources.configFile)
      : resolve(sources.cwd, CONFIG_FILE_NAME);
  let config: StageloopConfig = { mcpServers: [], fallback: [], agents: [] };
  if (sources.configFile !== undefined && !existsSync(file))
    throw new StageloopError('config', `--mcp-config ${sources.configFile}: no such file`);
  if (existsSync(file)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new StageloopError('config', `${file}: cannot be read (${messageOf(error)})`);
    }
    config = parseConfigText(text, file, sources.env);
  }
  for (const value of sources.inline ?? []) {
    const server = parseInlineServer(value);
    if (config.mcpServers.some((existing) => existing.name === server.name)) {
      throw new StageloopError(
        'config',
        `--mcp ${server.name}=...: a server named "${server.name}" is already configured${config.file ? ` in ${config.file}` : ''}; pick another name`,
      );
    }
    config.mcpServers.push(server);
  }
  return config;
}

/** The config file's text; `file` names it in errors. */
export function parseConfigText(text: string, file: string, env: Environment): StageloopConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StageloopError('config', `${file} is not valid JSON (${messageOf(error)})`);
  }
  const root = configObject(parsed, file, 'the file');
  // Claude Desktop and Cursor say "mcpServers", VS Code's .vscode/mcp.json says "servers".
  const key = root.mcpServers === undefined && root.servers !== undefined ? 'servers' : 'mcpServers';
  const servers = root[key] === undefined ? {} : configObject(root[key], file, `"${key}"`);
  const mcpServers: McpServer[] = [];
  const warnings: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const server = serverEntry(name, configObject(entry, file, `${key}.${name}`), file, env, warnings, key);
    if (server) mcpServers.push(server);
  }
  const fallback = root.fallback === undefined ? [] : fallbackEntries(root.fallback, file, env);
  const agents = root.agents === undefined ? [] : agentEntries(configObject(root.agents, file, '"agents"'), file);
  const paths = (key: 'contextFiles' | 'skills') => {
    const list = root[key];
    if (list === undefined) return {};
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && item.trim() !== ''))
      throw new StageloopError('config', `${file}: "${key}" must be a list of paths`);
    return { [key]: (list as string[]).map((path) => resolve(dirname(file), path)) };
  };
  return {
    file,
    mcpServers,
    fallback,
    agents,
    ...paths('contextFiles'),
    ...paths('skills'),
    ...(warnings.length > 0 && { warnings }),
  };
}

const AGENT_KEYS = ['description', 'pipeline', 'model', 'instructions', 'tools', 'agents', 'handoffs'];

function agentEntries(entries: Record<string, unknown>, file: string): AgentConfig[] {
  const agents = Object.entries(entries).map(([name, value]) => {
    const where = `${file}: agents.${name}`;
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw new StageloopError(
        'config',
        `${file}: agents: agent name ${JSON.stringify(name)} must be letters, digits, _ or - (at most 64): it is a tool name`,
      );
    const entry = configObject(value, file, `agents.${name}`);
    const unknown = Object.keys(entry).filter((key) => !AGENT_KEYS.includes(key));
    if (unknown.length > 0)
      throw new StageloopError(
        'config',
        `${where} has unknown key ${unknown.map((key) => `"${key}"`).join(', ')}: use ${AGENT_KEYS.join(', ')}`,
      );
    const names = (key: 'tools' | 'agents' | 'handoffs'): string[] => {
      const list = entry[key] ?? [];
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && item.trim() !== ''))
        throw new StageloopError('config', `${where}.${key} must be a list of names`);
      return list as string[];
    };
    const agent: AgentConfig = {
      name,
      description: configText(entry.description, `${where}.description`),
      pipeline: entry.pipeline === undefined ? 'react' : configText(entry.pipeline, `${where}.pipeline`),
      instructions: configText(entry.instructions, `${where}.instructions`),
      tools: names('tools'),
      agents: names('agents'),
      handoffs: names('handoffs'),
    };
    if (entry.model !== undefined) agent.model = configText(entry.model, `${where}.model`);
    return agent;
  });
  const known = new Set(agents.map((agent) => agent.name));
  for (const agent of agents) {
    for (const key of ['agents', 'handoffs'] as const) {
      const missing = agent[key].find((name) => !known.has(name));
      if (missing !== undefined)
        throw new StageloopError(
          'config',
          `${file}: agents.${agent.name}.${key} names "${missing}", which is not an agent in this file: the agents are ${[...known].join(', ')}`,
        );
    }
  }
  return agents;
}

function fallbackEntries(value: unknown, file: string, env: Environment): FallbackModelEntry[] {
  if (!Array.isArray(value))
    throw new StageloopError('config', `${file}: "fallback" must be a list of { "model", "baseUrl"?, "apiKey"? }`);
  return value.map((item, index) => {
    const where = `${file}: fallback[${index}]`;
    const entry = configObject(item, file, `fallback[${index}]`);
    const unknown = Object.keys(entry).filter((key) => !['model', 'baseUrl', 'apiKey'].includes(key));
    if (unknown.length > 0)
      throw new StageloopError(
        'config',
        `${where} has unknown key ${unknown.map((key) => `"${key}"`).join(', ')}: use model, baseUrl, apiKey`,
      );
    const result: FallbackModelEntry = { model: configText(entry.model, `${where}.model`) };
    if (entry.baseUrl !== undefined)
      result.baseUrl = checkUrl(configText(entry.baseUrl, `${where}.baseUrl`), `${where}.baseUrl`);
    if (entry.apiKey !== undefined)
      result.apiKey = expandVariables(configText(entry.apiKey, `${where}.apiKey`), `${where}.apiKey`, env);
    return result;
  });
}

/** Variables read by the config loader come back as their own `${VAR}` reference: the file's templates stay templates. */
export function templateEnvironment(): Environment {
  return new Proxy(
    {},
    { get: (_target, name) => (typeof name === 'string' ? `\${${name}}` : undefined) },
  ) as Environment;
}
