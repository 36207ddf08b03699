// The crash lab's MCP twin (effects-lab.ts): an MCP server child process with one write tool, append_line, which
// appends "KEY\tTEXT" to EFFECTS_FILE (KEY: the caller's `_meta.idempotencyKey`). With EFFECTS_INSIDE_TEXT set, the
// call for that text, once its line is written, says "at inside <text>" on the stdout of the process that started the
// server (the lab's child, whose stdout the test reads) and never answers: the test kills that process there.
// EFFECTS_INSIDE_TEXT='*' stops every call once its line is written, saying nothing (the feature matrix's kill -9 column
// waits for the line: each run's writes are stopped, whatever their text).
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const file = process.env.EFFECTS_FILE!;
const server = new Server({ name: 'effects', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'append_line',
      description: 'Appends a line of text to the file.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const text = String(request.params.arguments?.text);
  const key = String(request.params._meta?.idempotencyKey ?? 'none');
  appendFileSync(file, `${key}\t${text}\n`);
  const inside = process.env.EFFECTS_INSIDE_TEXT;
  if (text === inside) appendFileSync(`/proc/${process.ppid}/fd/1`, `at inside ${text}\n`);
  if (text === inside || inside === '*') await new Promise(() => undefined);
  return { content: [{ type: 'text', text: `appended ${text}` }] };
});
await server.connect(new StdioServerTransport());
