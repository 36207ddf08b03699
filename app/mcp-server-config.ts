// The MCP servers of the config file (the `mcpServers` shape Claude Desktop, Cursor and VS Code use) and of
// --mcp NAME=COMMAND or NAME=URL: each checked and turned into an McpServer. Apart from config.ts, which reads the file.
import type { Environment } from '../src/model/config.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { MCP_SERVER_NAME_PATTERN, type McpServer } from '../src/tools/mcp/types.js';
import { checkUrl, configObject, configText, expandedRecord } from './config-values.js';

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

/** One entry of the file's "mcpServers"; undefined when it is disabled. */
export function serverEntry(
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
    const server: McpServer = { name, url: checkUrl(configText(entry.url, `${where}.url`), `${where}.url`) };
    if (entry.headers !== undefined) server.headers = expandedRecord(entry.headers, `${where}.headers`, env);
    return server;
  }
  const server: McpServer = { name, command: configText(entry.command, `${where}.command`) };
  if (entry.args !== undefined) {
    if (!Array.isArray(entry.args) || !entry.args.every((arg) => typeof arg === 'string'))
      throw new StageloopError('config', `${where}.args must be a list of strings`);
    server.args = entry.args as string[];
  }
  if (entry.env !== undefined) server.env = expandedRecord(entry.env, `${where}.env`, env);
  if (entry.cwd !== undefined) server.cwd = configText(entry.cwd, `${where}.cwd`);
  return server;
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
