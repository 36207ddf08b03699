// The Chat Completions adapter's cost per request against a bare `fetch` of the same recorded answer, on loopback:
// what OpenAIChatModel adds (the SDK, request building, reading every shape, usage) over sending and parsing the body.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { OpenAIChatModel } from '../src/model/openai-model.js';
import type { ChatRequest } from '../src/model/types.js';
import { collectGarbage, format, median, timeMs } from './measure.js';

interface Recorded {
  answer: { body?: unknown; chunks?: unknown[] };
}

const corpus = new URL('../tests/fixtures/providers/chat-completions/', import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, corpus), 'utf8')) as Recorded;
const whole = JSON.stringify(load('deepseek/tool-call.json').answer.body);
const streamed = `${load('xai/tool-call-grok-3-mini-streamed.json')
  .answer.chunks!.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join('')}data: [DONE]\n\n`;

/** One weather question with one tool: the request every adapter bench sends. */
export const request: ChatRequest = {
  purpose: 'think',
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is the weather in San Francisco?' },
  ],
  tools: [
    {
      name: 'weather',
      description: 'Current weather in a place.',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      strict: false,
    },
  ],
};
// The body the adapter sends for that request, so the bare fetch sends as much.
const wireBody = (stream: boolean) =>
  JSON.stringify({
    model: 'recorded',
    messages: request.messages,
    tools: request.tools!.map((tool) => ({ type: 'function', function: tool })),
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
  });

function serve(): Promise<Server> {
  const server = createServer((incoming, response) => {
    let stream = false;
    const pieces: Buffer[] = [];
    incoming.on('data', (piece: Buffer) => pieces.push(piece));
    incoming.on('end', () => {
      stream = (JSON.parse(Buffer.concat(pieces).toString('utf8')) as { stream?: boolean }).stream === true;
      response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      response.end(stream ? streamed : whole);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function microsPerRequest(requests: number, body: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    collectGarbage();
    samples.push(
      ((await timeMs(async () => {
        for (let index = 0; index < requests; index++) await body();
      })) *
        1000) /
        requests,
    );
  }
  return median(samples);
}

/** A bare fetch: send the body, read the answer (JSON, or every event's JSON). */
async function bareFetch(url: string, stream: boolean): Promise<unknown> {
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: wireBody(stream),
  });
  const text = await response.text();
  if (!stream) return JSON.parse(text) as unknown;
  return text
    .split('\n\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

export async function run(): Promise<void> {
  const server = await serve();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const model = new OpenAIChatModel({ baseUrl: url, model: 'recorded', apiKey: 'sk-bench', maxRetries: 0 });
  const requests = 300;
  await model.chat(request);
  await bareFetch(url, false);
  const sdk = new OpenAI({ baseURL: url, apiKey: 'sk-bench', maxRetries: 0 });
  const params = JSON.parse(wireBody(false)) as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const rows: Array<[string, number, number, number]> = [];
  for (const stream of [false, true]) {
    const adapter = await microsPerRequest(requests, () =>
      stream ? model.chatStream(request, () => undefined) : model.chat(request),
    );
    const bare = await microsPerRequest(requests, () => bareFetch(url, stream));
    // The openai SDK alone (what the adapter sends through), to tell its cost from ours.
    const sdkOnly = await microsPerRequest(requests, async () => {
      if (!stream) return sdk.chat.completions.create(params);
      const events = await sdk.chat.completions.create({
        ...params,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const event of events) void event;
    });
    rows.push([stream ? 'streamed (xAI tool call, 8 events)' : 'whole (DeepSeek tool call)', adapter, sdkOnly, bare]);
  }
  server.closeAllConnections();
  server.close();
  console.log('| answer | OpenAIChatModel | openai SDK alone | bare fetch | adapter over bare fetch |');
  console.log('|---|---|---|---|---|');
  for (const [name, adapter, sdkOnly, bare] of rows)
    console.log(
      `| ${name} | ${format(adapter)} µs | ${format(sdkOnly)} µs | ${format(bare)} µs | +${format(adapter - bare)} µs |`,
    );
}
