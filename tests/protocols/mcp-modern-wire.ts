// A 2026-07-28 request on /mcp as the wire carries it, for what SDK v2's client does not speak yet (the tasks
// extension): the `_meta` envelope (version, capabilities naming the tasks extension) and the standard headers.

/** Sends one request; the answer is one JSON body, or an SSE stream whose last message is the answer. */
export async function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, any>> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
          'io.modelcontextprotocol/clientInfo': { name: 'stageloop-task-host', version: '1.0.0' },
        },
      },
    }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? [...text.matchAll(/^data: (.+)$/gm)].map((line) => JSON.parse(line[1]!)).at(-1)
    : JSON.parse(text);
  if (json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}
