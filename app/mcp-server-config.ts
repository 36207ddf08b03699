// The MCP servers of the config file (the `mcpServers` shape Claude Desktop, Cursor and VS Code use) and of
// --mcp NAME=COMMAND or NAME=URL: each checked and turned into an McpServer. Apart from config.ts, which reads the file.
import type { Environment } from '../src/model/config.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { MCP_SERVER_NAME_PATTERN, type McpServer } from '../src/tools/mcp/types.js';
import { pathToFileURL } from 'node:url';
import type { McpOAuthSettings } from '../src/tools/mcp/oauth.js';
import { SAMPLING_POLICIES, type McpSamplingPolicy } from '../src/tools/mcp/sampling-gate.js';
import { checkUrl, configObject, configText, expandedRecord, expandVariables } from './config-values.js';

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

// Keys of Claude Desktop, Cursor, VS Code (`type`, `envFile` is not read) and Cline/Roo (`autoApprove`, `timeout`).
const SERVER_KEYS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'type',
  'disabled',
  'timeout',
  'roots',
  'oauth',
  'approveTools',
  'autoApprove',
  'sampling',
]);
const OAUTH_KEYS = new Set(['clientId', 'clientSecret', 'scopes']);

/** One entry of the file's "mcpServers" (or VS Code's "servers"); undefined when it is disabled. */
export function serverEntry(
  name: string,
  entry: Record<string, unknown>,
  file: string,
  env: Environment,
  warnings: string[] = [],
  root = 'mcpServers',
): McpServer | undefined {
  const where = `${file}: ${root}.${name}`;
  checkName(name, `${file}: ${root}`);
  // Another client's key is not a reason to refuse the file that client also reads: named, then ignored.
  const unknown = Object.keys(entry).filter((key) => !SERVER_KEYS.has(key));
  if (unknown.length > 0) warnings.push(`${where}: ignored unknown key ${unknown.map((key) => `"${key}"`).join(', ')}`);
  if (entry.disabled === true) return undefined;
  const hasCommand = entry.command !== undefined;
  if (hasCommand === (entry.url !== undefined))
    throw new StageloopError(
      'config',
      `${where} needs exactly one of "command" (a server to start) and "url" (a server to reach)`,
    );
  const settings = serverSettings(entry, where, env);
  if (!hasCommand) {
    const server: McpServer = {
      name,
      url: checkUrl(configText(entry.url, `${where}.url`), `${where}.url`),
      ...settings,
    };
    if (entry.headers !== undefined) server.headers = expandedRecord(entry.headers, `${where}.headers`, env);
    if (entry.oauth !== undefined) server.oauth = oauthEntry(entry.oauth, `${where}.oauth`, env, warnings);
    return server;
  }
  if (entry.oauth !== undefined) warnings.push(`${where}: "oauth" applies to a "url" server only, ignored`);
  const server: McpServer = { name, command: configText(entry.command, `${where}.command`), ...settings };
  if (entry.args !== undefined) server.args = stringList(entry.args, `${where}.args`);
  if (entry.env !== undefined) server.env = expandedRecord(entry.env, `${where}.env`, env);
  if (entry.cwd !== undefined) server.cwd = configText(entry.cwd, `${where}.cwd`);
  return server;
}

/** `timeout` (seconds), `roots`, `approveTools` / Cline's `autoApprove` (tools that need no approval), `sampling`. */
function serverSettings(
  entry: Record<string, unknown>,
  where: string,
  env: Environment,
): Pick<McpServer, 'timeout' | 'roots' | 'approveTools' | 'sampling'> {
  const settings: Pick<McpServer, 'timeout' | 'roots' | 'approveTools' | 'sampling'> = {};
  if (entry.timeout !== undefined) {
    if (typeof entry.timeout !== 'number' || !(entry.timeout > 0))
      throw new StageloopError('config', `${where}.timeout must be a number of seconds above 0, like 120`);
    settings.timeout = entry.timeout;
  }
  if (entry.roots !== undefined) {
    if (!Array.isArray(entry.roots))
      throw new StageloopError('config', `${where}.roots must be a list of folders or file:// URIs`);
    settings.roots = entry.roots.map((root, index) => rootEntry(root, `${where}.roots[${index}]`, env));
  }
  const approve = [
    ...(entry.approveTools !== undefined ? stringList(entry.approveTools, `${where}.approveTools`) : []),
    ...(entry.autoApprove !== undefined ? stringList(entry.autoApprove, `${where}.autoApprove`) : []),
  ];
  if (approve.length > 0) settings.approveTools = [...new Set(approve)];
  if (entry.sampling !== undefined) settings.sampling = samplingPolicy(entry.sampling, `${where}.sampling`);
  return settings;
}

function samplingPolicy(value: unknown, where: string): McpSamplingPolicy {
  if (typeof value === 'string' && (SAMPLING_POLICIES as readonly string[]).includes(value))
    return value as McpSamplingPolicy;
  throw new StageloopError('config', `${where} must be "allow", "ask" or "deny"; got ${JSON.stringify(value)}`);
}

function rootEntry(value: unknown, where: string, env: Environment): { uri: string; name?: string } {
  const object = typeof value === 'string' ? { uri: value } : configObject(value, where, '');
  const text = expandVariables(configText(object.uri ?? object.path, `${where}.uri`), `${where}.uri`, env);
  const uri = text.startsWith('file://') ? text : pathToFileURL(text).href;
  return object.name !== undefined ? { uri, name: configText(object.name, `${where}.name`) } : { uri };
}

function oauthEntry(value: unknown, where: string, env: Environment, warnings: string[]): McpOAuthSettings {
  const object = configObject(value, where, '');
  const unknown = Object.keys(object).filter((key) => !OAUTH_KEYS.has(key));
  if (unknown.length > 0) warnings.push(`${where}: ignored unknown key ${unknown.map((key) => `"${key}"`).join(', ')}`);
  const oauth: McpOAuthSettings = {};
  if (object.clientId !== undefined) oauth.clientId = configText(object.clientId, `${where}.clientId`);
  if (object.clientSecret !== undefined)
    oauth.clientSecret = expandVariables(
      configText(object.clientSecret, `${where}.clientSecret`),
      `${where}.clientSecret`,
      env,
    );
  if (object.scopes !== undefined) oauth.scopes = stringList(object.scopes, `${where}.scopes`);
  return oauth;
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new StageloopError('config', `${where} must be a list of strings`);
  return value as string[];
}

function checkName(name: string, where: string): void {
  if (!MCP_SERVER_NAME_PATTERN.test(name))
    throw new StageloopError(
      'config',
      `${where}: server name ${JSON.stringify(name)} must be letters, digits, _ or - (at most 32): it prefixes tool names`,
    );
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
