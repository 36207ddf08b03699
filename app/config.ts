// The config file (stageloop.config.json or --mcp-config FILE) and --mcp NAME=COMMAND: MCP servers in the
// `mcpServers` shape Claude Desktop, Cursor and VS Code use, fallback models, and agents. Errors never show a value.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Environment } from '../src/model/config.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { messageOf } from '../src/common/error-message.js';
import { MCP_SERVER_NAME_PATTERN, type McpServer } from '../src/tools/mcp/types.js';

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
  const root = object(parsed, file, 'the file');
  const servers = root.mcpServers === undefined ? {} : object(root.mcpServers, file, '"mcpServers"');
  const mcpServers: McpServer[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const server = serverEntry(name, object(entry, file, `mcpServers.${name}`), file, env);
    if (server) mcpServers.push(server);
  }
  const fallback = root.fallback === undefined ? [] : fallbackEntries(root.fallback, file, env);
  const agents = root.agents === undefined ? [] : agentEntries(object(root.agents, file, '"agents"'), file);
  return { file, mcpServers, fallback, agents };
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
    const entry = object(value, file, `agents.${name}`);
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
      description: text(entry.description, `${where}.description`),
      pipeline: entry.pipeline === undefined ? 'react' : text(entry.pipeline, `${where}.pipeline`),
      instructions: text(entry.instructions, `${where}.instructions`),
      tools: names('tools'),
      agents: names('agents'),
      handoffs: names('handoffs'),
    };
    if (entry.model !== undefined) agent.model = text(entry.model, `${where}.model`);
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

/** `files=npx -y @modelcontextprotocol/server-filesystem /tmp` or `docs=https://example.com/mcp`. */
export function parseInlineServer(value: string): McpServer {
  const equals = value.indexOf('=');
  const name = equals > 0 ? value.slice(0, equals).trim() : '';
  const rest = equals > 0 ? value.slice(equals + 1).trim() : '';
  if (!name || !rest)
    throw new StageloopError(
      'config',
      `--mcp needs NAME=COMMAND or NAME=URL, got ${JSON.stringify(value)}: --mcp "files=npx -y @modelcontextprotocol/server-filesystem /tmp"`,
    );
  checkName(name, '--mcp');
  if (/^https?:\/\//i.test(rest)) return { name, url: checkUrl(rest, `--mcp ${name}`) };
  const [command, ...args] = splitCommand(rest, `--mcp ${name}`);
  return args.length > 0 ? { name, command: command!, args } : { name, command: command! };
}

const SERVER_KEYS = new Set(['command', 'args', 'env', 'cwd', 'url', 'headers', 'type', 'disabled']);

function serverEntry(
  name: string,
  entry: Record<string, unknown>,
  file: string,
  env: Environment,
): McpServer | undefined {
  const where = `${file}: mcpServers.${name}`;
  checkName(name, `${file}: mcpServers`);
  const unknown = Object.keys(entry).filter((key) => !SERVER_KEYS.has(key));
  if (unknown.length > 0)
    throw new StageloopError(
      'config',
      `${where} has unknown key ${unknown.map((key) => `"${key}"`).join(', ')}: use command, args, env, cwd (stdio) or url, headers (HTTP)`,
    );
  if (entry.disabled === true) return undefined;
  const hasCommand = entry.command !== undefined;
  if (hasCommand === (entry.url !== undefined))
    throw new StageloopError(
      'config',
      `${where} needs exactly one of "command" (a server to start) and "url" (a server to reach)`,
    );
  if (!hasCommand) {
    const server: McpServer = { name, url: checkUrl(text(entry.url, `${where}.url`), `${where}.url`) };
    if (entry.headers !== undefined) server.headers = expandedRecord(entry.headers, `${where}.headers`, env);
    return server;
  }
  const server: McpServer = { name, command: text(entry.command, `${where}.command`) };
  if (entry.args !== undefined) {
    if (!Array.isArray(entry.args) || !entry.args.every((arg) => typeof arg === 'string'))
      throw new StageloopError('config', `${where}.args must be a list of strings`);
    server.args = entry.args as string[];
  }
  if (entry.env !== undefined) server.env = expandedRecord(entry.env, `${where}.env`, env);
  if (entry.cwd !== undefined) server.cwd = text(entry.cwd, `${where}.cwd`);
  return server;
}

function fallbackEntries(value: unknown, file: string, env: Environment): FallbackModelEntry[] {
  if (!Array.isArray(value))
    throw new StageloopError('config', `${file}: "fallback" must be a list of { "model", "baseUrl"?, "apiKey"? }`);
  return value.map((item, index) => {
    const where = `${file}: fallback[${index}]`;
    const entry = object(item, file, `fallback[${index}]`);
    const unknown = Object.keys(entry).filter((key) => !['model', 'baseUrl', 'apiKey'].includes(key));
    if (unknown.length > 0)
      throw new StageloopError(
        'config',
        `${where} has unknown key ${unknown.map((key) => `"${key}"`).join(', ')}: use model, baseUrl, apiKey`,
      );
    const result: FallbackModelEntry = { model: text(entry.model, `${where}.model`) };
    if (entry.baseUrl !== undefined)
      result.baseUrl = checkUrl(text(entry.baseUrl, `${where}.baseUrl`), `${where}.baseUrl`);
    if (entry.apiKey !== undefined)
      result.apiKey = expandVariables(text(entry.apiKey, `${where}.apiKey`), `${where}.apiKey`, env);
    return result;
  });
}

/** `${VAR}` (or VS Code's `${env:VAR}`) replaced from the environment: the config file's values and the recipe's secret templates; an unset variable is a config error naming it, never a value. */
export function expandVariables(value: string, where: string, env: Environment): string {
  return value.replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (_reference, variable: string) => {
    const found = env[variable];
    if (found === undefined)
      throw new StageloopError(
        'config',
        `${where} uses \${${variable}}, which is not set: export ${variable} before running stageloop`,
      );
    return found;
  });
}

function expandedRecord(value: unknown, where: string, env: Environment): Record<string, string> {
  const entries = Object.entries(object(value, where, ''));
  const result: Record<string, string> = {};
  for (const [key, field] of entries) {
    // The value is never shown: it may be a secret.
    if (typeof field !== 'string') throw new StageloopError('config', `${where}.${key} must be a string`);
    result[key] = expandVariables(field, `${where}.${key}`, env);
  }
  return result;
}

function object(value: unknown, file: string, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new StageloopError('config', `${what ? `${file}: ${what}` : file} must be a JSON object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new StageloopError('config', `${where} must be a non-empty string`);
  return value;
}

function checkName(name: string, where: string): void {
  if (!MCP_SERVER_NAME_PATTERN.test(name))
    throw new StageloopError(
      'config',
      `${where}: server name ${JSON.stringify(name)} must be letters, digits, _ or - (at most 32): it prefixes tool names`,
    );
}

function checkUrl(value: string, where: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // Reported below.
  }
  throw new StageloopError('config', `${where} must be an http:// or https:// URL`);
}

/** Words of a command line; "double" or 'single' quotes keep spaces. */
function splitCommand(line: string, where: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  const quotes = ((line.match(/"/g)?.length ?? 0) % 2) + ((line.match(/'/g)?.length ?? 0) % 2);
  if (quotes !== 0) throw new StageloopError('config', `${where}: unbalanced quote in the command`);
  return words;
}

/** Variables read by the config loader come back as their own `${VAR}` reference: the file's templates stay templates. */
export function templateEnvironment(): Environment {
  return new Proxy(
    {},
    { get: (_target, name) => (typeof name === 'string' ? `\${${name}}` : undefined) },
  ) as Environment;
}
