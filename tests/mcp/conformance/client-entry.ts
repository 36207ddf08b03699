// The client the official conformance suite drives: stageloop's MCP client (mcpTools, the registry's executor) against
// the suite's scenario server at argv[2]; the scenario's name is in MCP_CONFORMANCE_SCENARIO and its credentials, when
// it has some, in MCP_CONFORMANCE_CONTEXT. The person of an OAuth flow is played by following the authorization
// redirect (the suite's authorization server approves at once), and of an elicitation by accepting the form as is.
import { McpServerPool, mcpTools, memoryCredentialStore, type McpOAuthSettings } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';

/** The suite's stand-in for a client metadata document URL (CIMD); its authorization server accepts it. */
const METADATA_DOCUMENT = 'https://conformance-test.local/client-metadata.json';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!url) {
  console.error('usage: client-entry.ts SERVER_URL (the suite sets MCP_CONFORMANCE_SCENARIO)');
  process.exit(2);
}

const pool = new McpServerPool();
try {
  const server = { name: 'conformance', url, oauth: oauthSettings() };
  const tools = await mcpTools(server, {
    pool,
    credentials: memoryCredentialStore(),
    authorizer: followRedirect,
    handlers: { elicit: async () => ({ action: 'accept', content: {} }) },
  });
  const registry = new ToolRegistry(tools, { defaultTimeoutMs: 60_000 });
  // Each scenario's server offers the tools it wants called; the auth scenarios offer `test-tool`.
  for (const tool of tools) {
    const result = await registry.execute({
      id: `call_${tool.name}`,
      name: tool.name,
      arguments: argumentsFor(tool.name),
    });
    console.log(tool.name, JSON.stringify(result));
  }
  await pool.closeAll();
  process.exit(0);
} catch (error) {
  console.error(`scenario ${scenario}:`, error);
  await pool.closeAll();
  process.exit(1);
}

function oauthSettings(): McpOAuthSettings {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string | undefined>;
  if (scenario.startsWith('auth/client-credentials'))
    return {
      grant: 'client_credentials',
      clientId: context.client_id!,
      ...(context.client_secret !== undefined && { clientSecret: context.client_secret }),
      ...(context.private_key_pem !== undefined && { privateKey: context.private_key_pem }),
    };
  if (scenario.startsWith('auth/cross-app-access'))
    return {
      grant: 'cross_app_access',
      clientId: context.client_id!,
      clientSecret: context.client_secret!,
      idp: {
        url: context.idp_issuer!,
        tokenEndpoint: context.idp_token_endpoint!,
        clientId: context.idp_client_id!,
        idToken: context.idp_id_token!,
      },
    };
  if (context.client_id !== undefined)
    return {
      clientId: context.client_id,
      ...(context.client_secret !== undefined && { clientSecret: context.client_secret }),
    };
  return { clientId: METADATA_DOCUMENT };
}

/** The person approving: the authorization server answers with a redirect that carries the code. */
async function followRedirect(authorizationUrl: URL): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) throw new Error(`the authorization server answered ${response.status} without a code`);
  return code;
}

function argumentsFor(name: string): string {
  return name.endsWith('add_numbers') ? JSON.stringify({ a: 5, b: 3 }) : '{}';
}
