// What each protocol adds to a run: one offline ReAct run ("What is 17 * 23 + 4?", two model calls and a calculator
// call) per request through each real client against `stageloop serve` on loopback, against the floor of the same
// recorded run started directly (durable runPipeline, same assembly, same kind of SQLite store), in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { runServices, startServe } from '../app/serve.js';
import { runPipeline } from '../src/durable/durable-run.js';
import { median } from './measure.js';

const task = 'What is 17 * 23 + 4?';
const requests = 15;
const rounds = 5;

/** Rounds interleave the contenders, so a machine whose load changes minute to minute weighs on all of them alike. */
async function perRequestMs(contenders: Array<[string, () => Promise<unknown>]>): Promise<number[]> {
  for (const [, body] of contenders) for (let warm = 0; warm < 5; warm++) await body();
  const perRound: number[][] = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, [, body]] of contenders.entries()) {
      const started = performance.now();
      for (let request = 0; request < requests; request++) await body();
      perRound[index]!.push((performance.now() - started) / requests);
    }
  }
  return perRound.map(median);
}

export async function run(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-protocols-bench-'));
  const services = await runServices(join(folder, 'direct.db'), {});
  const serve = await startServe({ port: 0, host: '127.0.0.1', store: join(folder, 'served.db') }, {});
  const openai = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const transport = new DefaultChatTransport<UIMessage>({ api: `${serve.url}/v1/chat` });
  const mcp = new Client({ name: 'bench', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`)));
  const a2a = await new ClientFactory().createFromUrl(serve.url);
  try {
    const contenders: Array<[string, () => Promise<unknown>]> = [
      [
        'direct durable runPipeline (the floor)',
        async () => {
          const assembly = await services.assemble({ task, pipeline: 'react' });
          return runPipeline(
            assembly.pipeline,
            { task },
            {
              deps: assembly.deps,
              store: services.store,
              hashEvery: 'stage',
              ...(assembly.record && { record: assembly.record }),
            },
          );
        },
      ],
      [
        "POST /v1/runs with Accept: text/event-stream (stageloop's own API, plain fetch, read to the end)",
        async () =>
          (
            await fetch(`${serve.url}/v1/runs`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
              body: JSON.stringify({ task }),
            })
          ).arrayBuffer(),
      ],
      [
        'openai chat.completions.create',
        () => openai.chat.completions.create({ model: 'react', messages: [{ role: 'user', content: task }] }),
      ],
      [
        'openai stream + include_usage',
        async () => {
          for await (const chunk of await openai.chat.completions.create({
            model: 'react',
            messages: [{ role: 'user', content: task }],
            stream: true,
            stream_options: { include_usage: true },
          }))
            void chunk;
        },
      ],
      [
        'ai DefaultChatTransport + readUIMessageStream',
        async () => {
          const stream = await transport.sendMessages({
            chatId: 'bench',
            messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: task }] }],
            trigger: 'submit-message',
            messageId: undefined,
            abortSignal: undefined,
          });
          for await (const message of readUIMessageStream({ stream })) void message;
        },
      ],
      [
        'POST /v1/chat, plain fetch read to the end (the server side of the UI stream alone)',
        async () =>
          (
            await fetch(`${serve.url}/v1/chat`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                id: 'bench',
                messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: task }] }],
                trigger: 'submit-message',
              }),
            })
          ).arrayBuffer(),
      ],
      ['MCP callTool over Streamable HTTP', () => mcp.callTool({ name: 'react', arguments: { task } })],
      [
        'A2A sendMessage (JSON-RPC)',
        () =>
          a2a.sendMessage({
            tenant: '',
            message: {
              role: Role.ROLE_USER,
              messageId: crypto.randomUUID(),
              parts: [
                { content: { $case: 'text', value: task }, metadata: undefined, filename: '', mediaType: 'text/plain' },
              ],
              taskId: '',
              contextId: '',
              extensions: [],
              metadata: {},
              referenceTaskIds: [],
            },
            configuration: undefined,
            metadata: undefined,
          }),
      ],
    ];
    const figures = await perRequestMs(contenders);
    const floor = figures[0]!;
    for (const [index, [name]] of contenders.entries()) {
      const ms = figures[index]!;
      console.log(
        `${name}: ${ms.toFixed(2)} ms per request, ${(ms / floor).toFixed(2)}x the floor, +${(ms - floor).toFixed(2)} ms`,
      );
    }
  } finally {
    await mcp.close();
    await serve.stop();
    await services.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
