// `stageloop tools [--json] [--mcp-config FILE] [--mcp NAME=COMMAND]...`: every tool a run would offer, with its origin.
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import type { Environment } from '../../src/model/config.js';
import type { Tool } from '../../src/tools/define-tool.js';
import { mcpToolOrigin, mcpTools } from '../../src/tools/mcp/mcp-tools.js';
import { McpServerPool } from '../../src/tools/mcp/pool.js';
import type { McpServer } from '../../src/tools/mcp/types.js';
import { messageOf } from '../../src/common/error-message.js';
import { parseFlags } from './args.js';
import type { CommandModule } from './command.js';
import { loadStageloopConfig, mcpFlagOptions, type ConfigSources } from '../config.js';

export interface ToolsFlags {
  json: boolean;
  configFile?: string;
  inline: string[];
}

export const toolsUsage = `Usage: stageloop tools [--json] [--mcp-config FILE] [--mcp NAME=COMMAND]...

Lists the built-in tools and the tools of every configured MCP server (stageloop.config.json in the current folder,
or --mcp-config FILE, in the "mcpServers" shape of Claude Desktop, Cursor and VS Code), each with where it comes from.`;

/** Throws a `usage` StageloopError with a one-line message on a bad flag. */
export function parseToolsFlags(argv: readonly string[]): ToolsFlags | 'help' {
  const options = { ...mcpFlagOptions, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values } = parseFlags('tools', argv, options, false);
  if (values.help) return 'help';
  const flags: ToolsFlags = { json: values.json ?? false, inline: values.mcp ?? [] };
  if (values['mcp-config'] !== undefined) flags.configFile = values['mcp-config'];
  return flags;
}

export const tools: CommandModule = {
  usage: () => toolsUsage,
  async run(argv, io) {
    const flags = parseToolsFlags(argv);
    if (flags === 'help') return 'help';
    const { defaultTools } = await import('../ingredients.js');
    const builtIn = await defaultTools(io.env);
    return await toolsCommand(flags, {
      builtIn: builtIn.names.map((name) => builtIn.get(name)!),
      env: io.env,
      cwd: io.cwd,
      streams: io,
    });
  },
};

export interface ToolListing {
  name: string;
  description: string;
  origin: { kind: 'built-in' } | { kind: 'mcp'; server: string; tool: string; transport: string };
}

export interface ToolsCommandOptions {
  builtIn: readonly Tool[];
  env: Environment;
  cwd: string;
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
}

/** Lists the tools; a server that cannot start is reported on stderr and the others are still listed (exit 1). */
export async function toolsCommand(flags: ToolsFlags, options: ToolsCommandOptions): Promise<number> {
  const sources: ConfigSources = { inline: flags.inline, cwd: options.cwd, env: options.env };
  if (flags.configFile !== undefined) sources.configFile = flags.configFile;
  const config = loadStageloopConfig(sources);
  const pool = new McpServerPool();
  const listings: ToolListing[] = options.builtIn.map((tool) => ({
    name: tool.name,
    description: tool.description,
    origin: { kind: 'built-in' },
  }));
  let failed = false;
  try {
    const perServer = await Promise.allSettled(config.mcpServers.map((server) => mcpTools(server, { pool })));
    for (const outcome of perServer) {
      if (outcome.status === 'fulfilled') listings.push(...outcome.value.map(listingOf));
      else {
        failed = true;
        options.streams.stderr.write(`stageloop: ${terminalSafe(messageOf(outcome.reason))}\n`);
      }
    }
  } finally {
    await pool.closeAll();
  }
  // A run refuses two tools with one name; say so here too.
  for (const name of duplicates(listings.map((listing) => listing.name))) {
    failed = true;
    options.streams.stderr.write(
      `stageloop: two tools are named "${name}" (${listings
        .filter((listing) => listing.name === name)
        .map(originText)
        .join(' and ')}); rename a server or filter its tools\n`,
    );
  }
  options.streams.stdout.write(
    flags.json ? `${terminalSafeJson(listings)}\n` : terminalSafe(render(listings, config.mcpServers)),
  );
  return failed ? 1 : 0;
}

function listingOf(tool: Tool): ToolListing {
  const origin = mcpToolOrigin(tool);
  return {
    name: tool.name,
    description: tool.description,
    origin: origin ? { kind: 'mcp', ...origin } : { kind: 'built-in' },
  };
}

function originText(listing: ToolListing): string {
  return listing.origin.kind === 'built-in' ? 'built-in' : `mcp ${listing.origin.server} (${listing.origin.transport})`;
}

function duplicates(names: readonly string[]): string[] {
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

function render(listings: readonly ToolListing[], servers: readonly McpServer[]): string {
  const width = Math.max(4, ...listings.map((listing) => listing.name.length));
  const lines = listings.map((listing) => {
    const origin = originText(listing);
    const summary = shortened(listing.description.split('\n')[0]!, 100);
    return `${listing.name.padEnd(width)}  ${origin}\n${' '.repeat(width + 2)}${summary}`;
  });
  const footer =
    servers.length === 0 ? '\n(no MCP servers configured: add stageloop.config.json or pass --mcp NAME=COMMAND)' : '';
  return `${lines.join('\n')}${footer}\n`;
}

/** The first line cut to `limit` characters; a cut line ends in an ellipsis so it does not read as the whole text. */
export function shortened(line: string, limit: number): string {
  return line.length <= limit ? line : `${line.slice(0, limit - 1).trimEnd()}…`;
}
