// An MCP server on the SDK's v2 packages (`@modelcontextprotocol/server` 2.x through `serveStdio`), which speaks
// MCP 2026-07-28 (`server/discover`, `input_required`) and 2025-11-25: the client's other era. Its tools answer with
// what the client sent: the protocol version, the request's `_meta`, a person's answer asked for with
// `input_required` (the 2026 way to ask; on a 2025 connection the SDK sends a real `elicitation/create`).
import { acceptedContent, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'v2-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool('meta', { description: 'Answers with the request _meta.' }, async (ctx) => ({
    content: [{ type: 'text', text: JSON.stringify({ ...ctx.mcpReq._meta, ...ctx.mcpReq.envelope }) }],
  }));
  server.registerTool('confirm', { description: 'Asks a person, then answers with the answer.' }, async (ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
    if (answer === undefined)
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: 'Go ahead?',
            requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
          }),
        },
      });
    return { content: [{ type: 'text', text: `answered ${JSON.stringify(answer)}` }] };
  });
  return server;
});
