// `stageloop mcp login NAME` / `stageloop mcp logout NAME`: a person authorizes stageloop at an OAuth-protected MCP
// server once; the tokens are kept per server (beside the store) and every later run uses and refreshes them.
import { createServer, type Server } from 'node:http';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { messageOf } from '../../src/common/error-message.js';
import { parseFlags } from './args.js';
import type { CommandIo } from './command.js';
import { terminalSafe } from './terminal-text.js';
import { loadStageloopConfig, mcpFlagOptions, type ConfigSources } from '../config.js';

export const mcpLoginUsage = `Usage: stageloop mcp login NAME [--mcp-config FILE]
       stageloop mcp logout NAME
login: authorizes stageloop at the OAuth-protected MCP server NAME of stageloop.config.json (or --mcp-config FILE):
prints the address to open in a browser, waits for the approval on http://127.0.0.1:33418/callback, and keeps the
tokens in $STAGELOOP_HOME/mcp-oauth/NAME.json (else ./.stageloop/mcp-oauth); runs use and refresh them.
logout: forgets the server's tokens and client registration.`;

/** How long login waits for the person to approve in the browser. */
const APPROVAL_WAIT_MS = 5 * 60_000;

export async function mcpLoginCommand(
  verb: 'login' | 'logout',
  argv: readonly string[],
  io: CommandIo,
): Promise<number | 'help'> {
  const { values, positionals } = parseFlags(
    `mcp ${verb}`,
    argv,
    { 'mcp-config': mcpFlagOptions['mcp-config'], help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (values.help) return 'help';
  const name = positionals[0];
  if (name === undefined || positionals.length > 1)
    throw new StageloopError('usage', `stageloop mcp ${verb} takes one server name: stageloop mcp ${verb} NAME`);
  const { defaultCredentialStore } = await import('../../src/tools/mcp/oauth.js');
  const credentials = defaultCredentialStore(io.env);
  if (verb === 'logout') {
    const existed = await credentials.remove(name);
    io.stdout.write(existed ? `logged out of ${name}\n` : `no saved authorization for ${name}\n`);
    return 0;
  }
  const sources: ConfigSources = { inline: [], cwd: io.cwd, env: io.env };
  if (values['mcp-config'] !== undefined) sources.configFile = values['mcp-config'];
  const config = loadStageloopConfig(sources);
  const server = config.mcpServers.find((candidate) => candidate.name === name);
  if (server === undefined)
    throw new StageloopError(
      'usage',
      `no MCP server named "${name}" in ${config.file ?? 'stageloop.config.json'}: the servers are ${config.mcpServers.map((entry) => entry.name).join(', ') || '(none)'}`,
    );
  if (!('url' in server))
    throw new StageloopError('usage', `MCP server "${name}" runs as a command: only servers with a "url" log in`);
  const [{ mcpTools }, { McpServerPool }] = await Promise.all([
    import('../../src/tools/mcp/mcp-tools.js'),
    import('../../src/tools/mcp/pool.js'),
  ]);
  const pool = new McpServerPool();
  const approvals = new BrowserApproval(io, name);
  try {
    const tools = await mcpTools(server, { pool, credentials, authorizer: (url) => approvals.ask(url) });
    io.stdout.write(`logged in to ${name}: ${tools.length} tool${tools.length === 1 ? '' : 's'} offered\n`);
    return 0;
  } catch (error) {
    throw new StageloopError('tool', `could not log in to ${name}: ${messageOf(error)}`, { cause: error });
  } finally {
    approvals.close();
    await pool.closeAll();
  }
}

/** The redirect's listener: prints where to approve, and gives back the code the browser brings to the callback. */
class BrowserApproval {
  #server: Server | undefined;

  constructor(
    private readonly io: CommandIo,
    private readonly name: string,
  ) {}

  async ask(authorizationUrl: URL): Promise<string> {
    const { MCP_OAUTH_REDIRECT } = await import('../../src/tools/mcp/oauth.js');
    const redirect = new URL(MCP_OAUTH_REDIRECT);
    this.close();
    const code = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new StageloopError('tool', `no approval within ${APPROVAL_WAIT_MS / 60_000} minutes`)),
        APPROVAL_WAIT_MS,
      );
      this.#server = createServer((request, response) => {
        const url = new URL(request.url ?? '/', redirect);
        if (url.pathname !== redirect.pathname) return void response.writeHead(404).end();
        const given = url.searchParams.get('code');
        const refused = url.searchParams.get('error');
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(given ? 'stageloop is authorized: you can close this tab.' : `Not authorized: ${refused}`);
        clearTimeout(timer);
        if (given) resolve(given);
        else reject(new StageloopError('tool', `the server refused the authorization (${refused ?? 'no code'})`));
      });
      this.#server.once('error', (error) => {
        clearTimeout(timer);
        reject(new StageloopError('tool', `cannot listen on ${redirect.host} for the approval: ${messageOf(error)}`));
      });
      this.#server.listen(Number(redirect.port), redirect.hostname, () =>
        this.io.stderr.write(
          `To authorize stageloop at ${this.name}, open this address in a browser:\n${terminalSafe(authorizationUrl.href)}\nwaiting for the approval...\n`,
        ),
      );
    });
    return code.finally(() => this.close());
  }

  close(): void {
    this.#server?.close();
    this.#server = undefined;
  }
}
