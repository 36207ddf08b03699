// `stageloop mcp`: an MCP server on stdio with one tool per pipeline, for Claude Desktop, Cursor or VS Code. Only
// JSON-RPC goes to stdout; notices go to stderr. Every call is an ordinary recorded run in the CLI's store.
import type { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { loadOptional, optionalParts } from '../../src/common/optional-package.js';
import { parseFlags } from './args.js';
import type { CommandIo, CommandModule } from './command.js';
import { mcpLoginUsage } from './mcp-login-command.js';

export const mcpUsage = `Usage: stageloop mcp [--store PATH] [--mcp-config FILE]
Serves every pipeline as an MCP tool over stdio (input { "task": string }, the answer as text), in MCP 2026-07-28
or 2025-11-25 as the client opens, with progress notifications and cancellation; called as a task it returns at
once (the task is the recorded run). Recorded runs are resources (stageloop://runs/{id}), each pipeline a prompt,
and so is each agent of stageloop.config.json (or --mcp-config FILE). Runs are recorded in --store PATH (default
$STAGELOOP_HOME/stageloop.db, else ./.stageloop/stageloop.db). The model comes from the environment (the offline
model without OPENAI_API_KEY).
Claude Desktop / Cursor: { "mcpServers": { "stageloop": { "command": "stageloop", "args": ["mcp"] } } }

${mcpLoginUsage}`;

export const mcp: CommandModule = { usage: () => mcpUsage, run: (argv, io) => mcpCommand(argv, io) };

export async function mcpCommand(
  argv: readonly string[],
  io: CommandIo,
  calculatorHost?: CalculatorWorkerHost,
): Promise<number | 'help'> {
  // The client side: a person authorizes stageloop at an OAuth-protected server once.
  const [verb, ...rest] = argv;
  if (verb === 'login' || verb === 'logout')
    return (await import('./mcp-login-command.js')).mcpLoginCommand(verb, rest, io);
  const { values } = parseFlags(
    'mcp',
    argv,
    { store: { type: 'string' }, 'mcp-config': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    false,
  );
  if (values.help) return 'help';
  const { env, stdin, ...streams } = io;
  // stdout belongs to JSON-RPC: anything a library logs goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  const [{ runServices }, { stageloopMcpServer }, { followRunUpdates }, { serveStdio }] = await loadOptional(
    'stageloop mcp',
    optionalParts.mcpServer,
    () =>
      Promise.all([
        import('../serve.js'),
        import('../../src/server/protocols/mcp-server.js'),
        import('../../src/server/protocols/mcp-resources.js'),
        import('@modelcontextprotocol/server/stdio'),
      ]),
  );
  const services = await runServices(values.store, env, calculatorHost, undefined, values['mcp-config']);
  streams.stderr.write(`stageloop mcp: ${services.notice}\n`);
  const served = { ...services, defaultPipeline: 'react' };
  // serveStdio picks the era from the client's opening (server/discover: 2026-07-28; initialize: 2025-11-25) and
  // pins one server from the factory to the connection; a 2026 client's run updates go to that server's listen streams.
  let modern: ReturnType<typeof stageloopMcpServer> | undefined;
  const stopUpdates = followRunUpdates(
    services.host,
    (uri) => void modern?.server.sendResourceUpdated({ uri }).catch(() => undefined),
  );
  const closed = new Promise<string>((resolve) => {
    stdin.once('end', () => resolve('the client closed stdin'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const connection = serveStdio(({ era }) => {
    const server = stageloopMcpServer(served, era);
    if (era === 'modern') modern = server;
    return server;
  });
  const reason = await closed;
  streams.stderr.write(`stageloop mcp: ${reason}: letting running calls reach a checkpoint\n`);
  stopUpdates();
  await services.close();
  await connection.close().catch(() => undefined);
  return 0;
}
