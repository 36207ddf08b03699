// A small MCP server written with the SDK, for tests: stdio by default, Streamable HTTP with `--http` (it then prints
// `{"url": ...}` as its first stdout line). Run with `node --import tsx tests/support/mcp-test-server.ts [--http]`.
// Tools: echo (annotated read-only), slow (waits, honours cancellation), fail (a JSON-RPC error), error_result (isError: true),
// picture (text and an image), whoami (the request's x-test-token header), `--alias NAME` copies of echo,
// `--many N` numbered tools tool_00001... (calls to them answer like echo), `--describe NAME=TEXT` replaces a description,
// `--with-write-tool` adds send_message, `--meta-tool` adds meta (the request's `_meta` as JSON),
// `--progress-tools` adds ticking (progress every everyMs) and change_tools (echo loses its read-only mark, fail goes,
// added comes, then notifications/tools/list_changed), `--ask-tool` adds ask_number (an elicitation form). When
// MCP_TEST_LOG names a file, every call, finish, cancellation and elicited answer is appended to it as one JSON line,
// with the server's pid.
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

const logFile = process.env.MCP_TEST_LOG;

function log(event: Record<string, unknown>): void {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
}

const tools: Tool[] = [
  {
    name: 'echo',
    description: 'Returns its text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'slow',
    description: 'Waits ms milliseconds, then says so.',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: 60000 } },
      required: ['ms'],
    },
  },
  {
    name: 'fail',
    description: 'Always answers with a JSON-RPC error.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'error_result',
    description: 'Always returns a result with isError: true.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'picture',
    description: 'Returns a caption and a tiny image.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'whoami',
    description: 'Returns the x-test-token header of the HTTP request.',
    inputSchema: { type: 'object', properties: {} },
  },
];

// `--alias NAME` (repeatable) adds a copy of echo under NAME, for name-collision tests.
const aliases = process.argv.flatMap((argument, index) => (argument === '--alias' ? [process.argv[index + 1]!] : []));
for (const alias of aliases)
  tools.push({ ...tools[0]!, name: alias, description: `Returns its text (echo under the name ${alias}).` });
// `--many N` adds N more tools, each with a schema of its own (for listing at scale).
const many = Number(process.argv[process.argv.indexOf('--many') + 1] ?? 0);
for (let index = 1; process.argv.includes('--many') && index <= many; index++) {
  const name = `tool_${String(index).padStart(5, '0')}`;
  tools.push({
    name,
    description: `Tool number ${index}: returns its text.`,
    inputSchema: {
      type: 'object',
      properties: {
        [`text_${index}`]: { type: 'string', minLength: 1 },
        count: { type: 'integer', minimum: 0, maximum: index },
      },
      required: [`text_${index}`],
      additionalProperties: false,
    },
  });
}

// `--with-write-tool` adds send_message, a side effect the server does not annotate read-only (so stageloop calls it a write).
if (process.argv.includes('--with-write-tool')) {
  tools.push({
    name: 'send_message',
    description: 'Sends a message to a recipient.',
    inputSchema: {
      type: 'object',
      properties: { to: { type: 'string' }, text: { type: 'string' } },
      required: ['to', 'text'],
    },
  });
}

// `--progress-tools`: a call that reports progress (and the progress token it was given), and a change of the tool list.
if (process.argv.includes('--progress-tools')) {
  tools.push(
    {
      name: 'ticking',
      description: 'Reports progress every everyMs milliseconds, steps times, then says which progress token it had.',
      inputSchema: {
        type: 'object',
        properties: { steps: { type: 'integer', minimum: 1 }, everyMs: { type: 'integer', minimum: 1 } },
        required: ['steps', 'everyMs'],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'change_tools',
      description: 'Changes the tool list and tells the client so.',
      inputSchema: { type: 'object', properties: {} },
    },
  );
}

// `--meta-tool`: a tool that answers with the request's `_meta` as JSON (trace context, idempotency key, progress token).
if (process.argv.includes('--meta-tool'))
  tools.push({
    name: 'meta',
    description: "Returns the request's _meta as JSON.",
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  });

// `--ask-tool`: a tool that asks the client's person for a number (an elicitation form with no required field and a
// default of 84), so a run with no person finishes too: declined, the tool takes the default.
if (process.argv.includes('--ask-tool'))
  tools.push({
    name: 'ask_number',
    description: 'Asks a person which number to use (84 when they do not say).',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  });

/** The list after change_tools: echo may write now, fail is gone, added is new. */
function changeTools(): void {
  const echo = tools.find((tool) => tool.name === 'echo')!;
  echo.annotations = { readOnlyHint: false };
  tools.splice(
    tools.findIndex((tool) => tool.name === 'fail'),
    1,
  );
  tools.push({ name: 'added', description: 'Added by change_tools.', inputSchema: { type: 'object', properties: {} } });
}

// `--describe NAME=TEXT` (repeatable) replaces a tool's description, for screening and terminal-output tests.
for (const [index, argument] of process.argv.entries()) {
  if (argument !== '--describe') continue;
  const [name, ...words] = process.argv[index + 1]!.split('=');
  const tool = tools.find((each) => each.name === name);
  if (tool) tool.description = words.join('=');
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

function waitFor(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(false);
      },
      { once: true },
    );
  });
}

function makeServer(): Server {
  const server = new Server(
    { name: 'stageloop-test', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = request.params.arguments ?? {};
    const name = request.params.name;
    log({ event: 'call', tool: name, arguments: args });
    switch (name) {
      case 'echo':
        return text(String(args.text));
      case 'slow': {
        const finished = await waitFor(Number(args.ms), extra.signal);
        log({
          event: finished ? 'finished' : 'cancelled',
          tool: name,
          reason: finished ? undefined : String(extra.signal.reason),
        });
        return text(`waited ${String(args.ms)} ms`);
      }
      case 'fail':
        throw new McpError(ErrorCode.InternalError, 'the disk is on fire');
      case 'error_result':
        return { content: [{ type: 'text', text: 'no such record: 42' }], isError: true };
      case 'picture':
        return {
          content: [
            { type: 'text', text: 'a red dot' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          ],
        };
      case 'send_message':
        return text(`sent to ${String(args.to)}`);
      case 'ticking': {
        const token = extra._meta?.progressToken;
        for (let step = 1; step <= Number(args.steps); step++) {
          if (!(await waitFor(Number(args.everyMs), extra.signal))) return text('cancelled');
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: step, total: Number(args.steps), message: `step ${step}` },
            });
        }
        return text(`ticked ${String(args.steps)} times with progress token ${JSON.stringify(token ?? null)}`);
      }
      case 'change_tools':
        changeTools();
        await server.sendToolListChanged();
        return text('changed');
      case 'added':
        return text('added answers');
      case 'meta':
        return text(JSON.stringify(request.params._meta ?? {}));
      case 'ask_number': {
        const answer = await server.elicitInput({
          message: 'Which number?',
          requestedSchema: {
            type: 'object',
            properties: { number: { type: 'number', default: 84 }, sure: { type: 'boolean' } },
          },
        });
        log({ event: 'elicited', tool: name, action: answer.action, content: answer.content });
        const given = answer.action === 'accept' ? Number(answer.content?.number ?? 84) : 84;
        return text(`${answer.action}${answer.content?.sure === true ? ' (sure)' : ''}: the number is ${given}`);
      }
      case 'whoami':
        return text(String(extra.requestInfo?.headers['x-test-token'] ?? '(no header)'));
      default:
        if (aliases.includes(name)) return text(String(args.text));
        if (/^tool_\d+$/.test(name)) return text(`${name}: ${JSON.stringify(args)}`);
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}`);
    }
  });
  return server;
}

async function serveHttp(): Promise<void> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (request: IncomingMessage, response) => {
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id): void => void transports.set(id, created),
      });
      created.onclose = () => created.sessionId && transports.delete(created.sessionId);
      transport = created;
      await makeServer().connect(created);
    }
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })}\n`);
}

if (process.argv.includes('--http')) await serveHttp();
else await makeServer().connect(new StdioServerTransport());
// `--linger` keeps the process alive after stdin closes, like servers holding other handles: only a signal ends it.
if (process.argv.includes('--linger')) setInterval(() => undefined, 60_000);
log({ event: 'started' });
