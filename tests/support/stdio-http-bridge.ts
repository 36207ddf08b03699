// A loopback Streamable HTTP front for a stdio MCP server, for suites that take only URLs (the conformance suite):
// each HTTP session starts its own child (`command args`) and the two transports pass JSON-RPC messages through as
// they are. A child's notification or request goes on the stream of the client request it belongs to (by progress
// token, else the latest open request), as the child would have sent it on that request's stream.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface StdioBridge {
  url: string;
  close(): Promise<void>;
}

type Message = JSONRPCMessage & { id?: RequestId; method?: string; params?: { _meta?: { progressToken?: unknown } } };

export async function startStdioBridge(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<StdioBridge> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const children = new Set<StdioClientTransport>();
  const server: Server = createServer((request, response) => {
    const known = sessions.get(String(request.headers['mcp-session-id']));
    if (known !== undefined) return void known.handleRequest(request, response);
    const child = new StdioClientTransport({ command, args, env, stderr: 'ignore' });
    const front: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, front),
    });
    const open: RequestId[] = [];
    const byToken = new Map<unknown, RequestId>();
    front.onmessage = (message: Message) => {
      if (message.method !== undefined && message.id !== undefined) {
        open.push(message.id);
        const token = message.params?._meta?.progressToken;
        if (token !== undefined) byToken.set(token, message.id);
      }
      void child.send(message);
    };
    child.onmessage = (message: Message) => {
      const isResponse = message.method === undefined;
      if (isResponse) open.splice(open.indexOf(message.id!), 1);
      const token =
        message.params?._meta?.progressToken ?? (message.params as { progressToken?: unknown })?.progressToken;
      const related = isResponse ? undefined : (byToken.get(token) ?? open.at(-1));
      void front
        .send(message, related === undefined ? undefined : { relatedRequestId: related })
        .catch(() => undefined);
    };
    front.onclose = () => void child.close();
    children.add(child);
    void Promise.all([child.start(), front.start()]).then(
      () => front.handleRequest(request, response),
      () => response.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      await Promise.all([...children].map((child) => child.close()));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
