// One door, one error policy: POST /v1/runs and the four protocol endpoints start runs through startRun, so a shutdown
// and a store that is down answer 503 at each, an assembly's StageloopError keeps its own code, anything else is a 500
// whose body holds no stack. Over JSON-RPC (A2A, MCP) the code and its status travel in the protocol's error envelope.
import { afterEach, describe, expect, it } from 'vitest';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { runPipeline } from '../../src/durable/durable-run.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { serverApp } from '../../src/server/app.js';
import { listen, type ListeningServer } from '../../src/server/listen.js';
import { RunHost, type RunAssembly } from '../../src/server/run-host.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { RunStore } from '../../src/store/types.js';

const pipeline = definePipeline({
  name: 'react',
  iteration: [{ name: 'answer', execute: () => undefined }],
  maxIterations: 1,
});
const pipelines = [{ name: 'react', maxIterations: 1, setup: [], iteration: ['answer'], finalize: [] }];

interface Door {
  url: string;
  host: RunHost;
}

const listening: ListeningServer[] = [];
afterEach(async () => {
  await Promise.all(listening.splice(0).map((server) => server.close()));
});

/** A server whose runs are recorded in `store` and assembled by `assemble`. */
async function startDoor(
  store: RunStore,
  assemble: () => Promise<RunAssembly> = async () => ({ pipeline, deps: {} }),
): Promise<Door> {
  const host = new RunHost((assembly, input, options) => runPipeline(assembly.pipeline, input, { ...options, store }));
  const server = await listen(
    serverApp({ store, host, pipelines, defaultPipeline: 'react', shownSlots: [], assemble }),
    { host: '127.0.0.1', port: 0 },
  );
  listening.push(server);
  return { url: server.url, host };
}

/** What an endpoint answered: the error's code, the HTTP status it stands for, and the whole text a client got. */
interface Answer {
  code: unknown;
  status: unknown;
  text: string;
}

async function httpAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { code: (JSON.parse(text) as { error: { code: string } }).error.code, status: response.status, text };
}

const jsonPost = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const endpoints: Record<string, (url: string) => Promise<Answer>> = {
  'POST /v1/runs': async (url) => httpAnswer(await fetch(`${url}/v1/runs`, jsonPost({ task: 'What is 2 + 2?' }))),
  'OpenAI chat completions': async (url) =>
    httpAnswer(
      await fetch(
        `${url}/v1/chat/completions`,
        jsonPost({ model: 'react', messages: [{ role: 'user', content: 'What is 2 + 2?' }] }),
      ),
    ),
  'UI message stream': async (url) =>
    httpAnswer(
      await fetch(
        `${url}/v1/chat`,
        jsonPost({
          id: 'chat-1',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'What is 2 + 2?' }] }],
        }),
      ),
    ),
  A2A: async (url) => {
    const client = await new ClientFactory().createFromUrl(url);
    const message: Message = {
      role: Role.ROLE_USER,
      messageId: crypto.randomUUID(),
      parts: [
        {
          content: { $case: 'text', value: 'What is 2 + 2?' },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      taskId: '',
      contextId: '',
      extensions: [],
      metadata: {},
      referenceTaskIds: [],
    };
    const task = (await client.sendMessage({
      tenant: '',
      message,
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    const said = task.status!.message!;
    const fields = said.metadata as { code?: unknown; httpStatus?: unknown };
    return { code: fields.code, status: fields.httpStatus, text: JSON.stringify(said) };
  },
  MCP: async (url) => {
    const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    try {
      const result = await client.callTool({ name: 'react', arguments: { task: 'What is 2 + 2?' } });
      expect(result.isError).toBe(true);
      return {
        code: result._meta?.['stageloop/code'],
        status: result._meta?.['stageloop/httpStatus'],
        text: JSON.stringify(result),
      };
    } finally {
      await client.close();
    }
  },
};

const closedStore = async (): Promise<RunStore> => {
  const store = memoryStore();
  await store.close();
  return store;
};

const cases: Array<[string, () => Promise<Door>, { code: string; status: number; says: RegExp }]> = [
  [
    'a server shutting down',
    async () => {
      const door = await startDoor(memoryStore());
      await door.host.drain('the test stops the server');
      return door;
    },
    { code: 'unavailable', status: 503, says: /shutting down/ },
  ],
  ['a closed store', async () => startDoor(await closedStore()), { code: 'store', status: 503, says: /is closed/ }],
  [
    'a store whose writes reject',
    async () => startDoor({ ...memoryStore(), create: () => Promise.reject(new Error('the disk is gone')) }),
    { code: 'store', status: 503, says: /could not be recorded: the disk is gone/ },
  ],
  [
    'an assembly refusing a setting',
    async () =>
      startDoor(memoryStore(), () => Promise.reject(new StageloopError('config', 'SERPAPI_API_KEY is not set'))),
    { code: 'config', status: 400, says: /SERPAPI_API_KEY is not set/ },
  ],
  [
    'an assembly whose tool server fails',
    async () =>
      startDoor(memoryStore(), () => Promise.reject(new StageloopError('tool', 'MCP server files did not start'))),
    { code: 'tool', status: 502, says: /MCP server files did not start/ },
  ],
  [
    'an assembly with a bug',
    async () => startDoor(memoryStore(), () => Promise.reject(new TypeError('cannot read properties of undefined'))),
    { code: 'internal', status: 500, says: /cannot read properties of undefined/ },
  ],
];

describe('one door, one error policy', () => {
  describe.each(cases)('%s', (_name, start, expected) => {
    it.each(Object.keys(endpoints))('%s answers it with its code and status, and no stack', async (endpoint) => {
      const door = await start();
      const answer = await endpoints[endpoint]!(door.url);
      expect({ code: answer.code, status: answer.status }).toEqual({ code: expected.code, status: expected.status });
      expect(answer.text).toMatch(expected.says);
      expect(answer.text).not.toMatch(/\n\s+at |\\n\s+at /);
    });
  });
});
