// An MCP server over stdio written by hand, as older servers were: it answers initialize, tools/list and tools/call,
// and says nothing at all to a method it does not know (server/discover included).
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  if (request.method === 'initialize')
    send({
      id: request.id,
      result: {
        protocolVersion: request.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'silent', version: '1.0.0' },
      },
    });
  else if (request.method === 'tools/list')
    send({
      id: request.id,
      result: { tools: [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: {} } }] },
    });
  else if (request.method === 'tools/call')
    send({ id: request.id, result: { content: [{ type: 'text', text: 'echoed' }] } });
}
