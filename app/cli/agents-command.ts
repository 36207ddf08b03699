// `stageloop agents [--json] [--mcp-config FILE]`: the agents of the config file, each with its description and tools
// (the agents it may call are tools named after them).
import { loadStageloopConfig, mcpFlagOptions, templateEnvironment, type AgentConfig } from '../config.js';
import { parseFlags } from './args.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { CliStreams, CommandModule } from './command.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';

export const agentsUsage = `Usage: stageloop agents [--json] [--mcp-config FILE]

Lists the agents of stageloop.config.json (or --mcp-config FILE), from its "agents" object: name, description, and
the tools each offers its model (an agent it may call is a tool named after it), and the agents it may hand off to. Run one with: stageloop run --agent NAME "TASK"`;

export interface AgentListing {
  name: string;
  description: string;
  pipeline: string;
  model: string | null;
  tools: string[];
  /** Agents it may hand the rest of the run to. */
  handoffs: string[];
}

export const agents: CommandModule = { usage: () => agentsUsage, run: (argv, io) => agentsCommand(argv, io, io.cwd) };

export async function agentsCommand(
  argv: readonly string[],
  streams: CliStreams,
  cwd = process.cwd(),
): Promise<number | 'help'> {
  const options = {
    'mcp-config': mcpFlagOptions['mcp-config'],
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values } = parseFlags('agents', argv, options, false);
  if (values.help) return 'help';
  const config = loadStageloopConfig({
    cwd,
    env: templateEnvironment(),
    ...(values['mcp-config'] !== undefined && { configFile: values['mcp-config'] }),
  });
  if (config.agents.length === 0)
    throw new StageloopError(
      'usage',
      `no agents are defined${config.file !== undefined ? ` in ${config.file}` : ''}: add an "agents" object to stageloop.config.json (docs/agents.md)`,
    );
  const listing = config.agents.map(listingOf);
  if (values.json) {
    streams.stdout.write(`${terminalSafeJson(listing)}\n`);
    return 0;
  }
  const width = Math.max(...listing.map((agent) => agent.name.length));
  for (const agent of listing) {
    streams.stdout.write(`${terminalSafe(agent.name.padEnd(width))}  ${terminalSafe(agent.description)}\n`);
    streams.stdout.write(
      `${' '.repeat(width)}  tools: ${agent.tools.length > 0 ? terminalSafe(agent.tools.join(', ')) : '(none)'}\n`,
    );
    if (agent.handoffs.length > 0)
      streams.stdout.write(`${' '.repeat(width)}  hands off to: ${terminalSafe(agent.handoffs.join(', '))}\n`);
  }
  return 0;
}

function listingOf(agent: AgentConfig): AgentListing {
  return {
    name: agent.name,
    description: agent.description,
    pipeline: agent.pipeline,
    model: agent.model ?? null,
    tools: [...new Set([...agent.tools, ...agent.agents])],
    handoffs: [...agent.handoffs],
  };
}
