// The tools a recipe offers, built from this process's environment: the calculator, web search, MCP servers (their
// `${VAR}` templates filled in), remember in a session, narrowed by `tools.only`. Apart from assemble.ts, which joins
// them with the model and the pipeline.
import { StageloopError } from '../src/common/stageloop-error.js';
import type { Environment } from '../src/model/config.js';
import type { CalculatorWorkerHost } from '../src/tools/calculator-host.js';
import type { Tool } from '../src/tools/define-tool.js';
import type { McpServer } from '../src/tools/mcp/types.js';
import type { McpHandlersFor } from '../src/tools/mcp/run-requests.js';
import { prefixedToolName } from '../src/tools/mcp/names.js';
import type { SessionStore } from '../src/sessions/types.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { expandVariables } from './config-values.js';
import type { RunRecipe } from './recipe.js';

/** The calculator always; web search when the recipe has it (its key from the environment); MCP servers; remember in a session. */
export async function toolsOf(
  recipe: RunRecipe,
  env: Environment,
  calculatorHost: CalculatorWorkerHost | undefined,
  mcpServers: McpServer[],
  sessions?: SessionStore,
): Promise<ToolRegistry> {
  const { calculatorTool } = await import('../src/tools/calculator.js');
  const tools: Tool[] = [calculatorTool({}, calculatorHost)];
  const apiKey = env.SERPAPI_API_KEY?.trim();
  if (recipe.tools.webSearch === true || (recipe.tools.webSearch === undefined && apiKey)) {
    if (!apiKey)
      throw new StageloopError(
        'config',
        'SERPAPI_API_KEY is not set: this run offers web search; export SERPAPI_API_KEY',
      );
    const { webSearchTool } = await import('../src/tools/web-search.js');
    tools.push(webSearchTool(env.SERPAPI_BASE_URL ? { apiKey, baseUrl: env.SERPAPI_BASE_URL } : { apiKey }));
  }
  const { toolsWithMcp } = await import('./ingredients.js');
  const withMcp = onlyTools(
    await toolsWithMcp(new ToolRegistry(tools), { mcpServers, fallback: [], agents: [] }, await mcpOptions(mcpServers)),
    recipe.tools.only,
  );
  const skills = recipe.workspace?.skills ?? [];
  const extra = skills.length === 0 ? [] : (await import('../src/tools/skills.js')).skillTools(skills);
  if (recipe.session !== undefined) {
    const { rememberTool } = await import('../src/tools/remember.js');
    const { sessionScope } = await import('../src/sessions/types.js');
    // Bound to the run's session: a fact an agent or handoff target remembers is the session's too.
    const target = sessions && { sessions, scope: sessionScope(recipe.session.name, recipe.session.user) };
    extra.push(rememberTool(target));
  }
  if (extra.length === 0) return withMcp;
  return new ToolRegistry([...withMcp.names.map((name) => withMcp.get(name)!), ...extra], withMcp.options);
}

/** The servers' questions go to the run's person (a pending decision of kind `elicitation`) and their sampling
 * requests to the run's model, screened by the injection detector (docs/mcp.md). */
async function mcpOptions(mcpServers: readonly McpServer[]): Promise<{ handlers?: McpHandlersFor }> {
  if (mcpServers.length === 0) return {};
  const [{ runClientHandlers }, { detectInjection }] = await Promise.all([
    import('../src/tools/mcp/run-requests.js'),
    import('../stages/guards/injection/injection-detector.js'),
  ]);
  // Each server's sampling policy (the config's `sampling`, recorded with the run): a resume and a replay ask alike.
  const sampling = Object.fromEntries(
    mcpServers.flatMap((server) => (server.sampling ? [[server.name, server.sampling]] : [])),
  );
  return { handlers: runClientHandlers({ injection: (text) => detectInjection(text).detected, sampling }) };
}

/** The tools an MCP server's `approveTools` lets past the run's approval list, by their names in the run. */
export function approvedMcpTools(recipe: RunRecipe): string[] {
  return recipe.mcpServers.flatMap((server) =>
    (server.approveTools ?? []).map((tool) => prefixedToolName(server.name, tool)),
  );
}

/** The recipe's `tools.only`: just these tools by name ([] offers none); a name no tool has is a usage error. */
function onlyTools(tools: ToolRegistry, only: readonly string[] | undefined): ToolRegistry {
  if (only === undefined) return tools;
  const unknown = only.filter((name) => !tools.names.includes(name));
  if (unknown.length > 0)
    throw new StageloopError('usage', `no tool named ${unknown.join(', ')}: the tools are ${tools.names.join(', ')}`);
  return new ToolRegistry(
    only.map((name) => tools.get(name)!),
    tools.options,
  );
}

/** A recorded MCP server with its `${VAR}` templates filled from the environment. */
export function mcpServerOf(server: RunRecipe['mcpServers'][number], env: Environment): McpServer {
  const filled = (values: Record<string, string> | undefined, what: string) =>
    values === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(values).map(([key, value]) => [
            key,
            expandVariables(value, `MCP server ${server.name}: ${what}.${key}`, env),
          ]),
        );
  // The config's per-server settings ride along as they are (the secret in oauth was expanded when the file was read).
  const settings = {
    ...(server.timeout !== undefined && { timeout: server.timeout }),
    ...(server.roots !== undefined && { roots: server.roots }),
    ...(server.approveTools !== undefined && { approveTools: server.approveTools }),
    ...(server.sampling !== undefined && { sampling: server.sampling }),
  };
  if (server.url !== undefined) {
    const headers = filled(server.headers, 'headers');
    const oauth = server.oauth;
    return {
      name: server.name,
      url: server.url,
      ...(headers !== undefined && { headers }),
      ...(oauth && { oauth }),
      ...settings,
    };
  }
  if (server.command === undefined)
    throw new StageloopError('config', `MCP server ${server.name} has neither a command nor a url in the recipe`);
  const serverEnv = filled(server.env, 'env');
  return {
    name: server.name,
    command: server.command,
    ...(server.args !== undefined && { args: server.args }),
    ...(serverEnv !== undefined && { env: serverEnv }),
    ...(server.cwd !== undefined && { cwd: server.cwd }),
    ...settings,
  };
}
