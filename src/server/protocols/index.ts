// The protocol adapters in one place: the server's app mounts these routes once, behind its own auth and limits.
import { Hono, type Context } from 'hono';
import { loadOptional, optionalParts } from '../../common/optional-package.js';
import { a2aRoutes } from './a2a.js';
import { openAIChatRoutes } from './openai-chat.js';
import type { McpServices } from './mcp-server.js';
import { uiMessageStreamRoutes } from './ui-message-stream.js';

/** Paths the adapters answer, for the app's body limit (the app's access control covers every path). */
export const protocolPaths = ['/v1/chat/completions', '/v1/chat', '/mcp', '/a2a'] as const;

export function protocolRoutes(services: McpServices): Hono {
  const app = new Hono();
  app.route('/', openAIChatRoutes(services));
  app.route('/', uiMessageStreamRoutes(services));
  // The MCP SDK loads with the first /mcp request, not with every import of the server.
  let mcp: Promise<(context: Context) => Promise<Response>> | undefined;
  app.all('/mcp', async (context) =>
    (
      await (mcp ??= loadOptional('the /mcp endpoint', optionalParts.mcpServer, () => import('./mcp-server.js')).then(
        (module) => module.mcpHttpHandler(services),
      ))
    )(context),
  );
  app.route('/', a2aRoutes(services));
  return app;
}
