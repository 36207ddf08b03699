// The native adapters' cost per request (OpenAIResponsesModel, AnthropicModel) against a bare `fetch` of the same
// recorded answer on loopback: what each adds (its SDK, request building, reading the reply, usage) over sending the
// body it sends and parsing the answer (JSON, or every event's JSON).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { AnthropicModel } from '../src/model/anthropic-model.js';
import { OpenAIResponsesModel } from '../src/model/openai-responses-model.js';
import type { ChatModel } from '../src/model/types.js';
import { microsPerRequest, request } from './chat-completions.bench.js';
import { format } from './measure.js';

const corpus = new URL('../tests/fixtures/providers/', import.meta.url);
/** pydantic-ai's cassettes as the corpus keeps them: a whole JSON body or the event-stream text. */
const load = (name: string) =>
  JSON.parse(readFileSync(new URL(name, corpus), 'utf8')) as { body?: unknown; sse?: string };
const answers = {
  responses: {
    whole: JSON.stringify(
      load('responses/pydantic-ai/test_openai_responses_model_simple_response_with_tool_call.0.json').body,
    ),
    streamed: load('responses/pydantic-ai/test_openai_responses_stream.0.json').sse!,
  },
  anthropic: {
    whole: JSON.stringify(load('anthropic/pydantic-ai/test_anthropic_tool_with_thinking.0.json').body),
    streamed: load('anthropic/pydantic-ai/test_anthropic_model_thinking_part_stream.0.json').sse!,
  },
};

/** Answers every request with the recording for its API and mode; keeps the last body an adapter sent. */
function serve(api: keyof typeof answers, sent: { body: string }): Promise<Server> {
  const server = createServer((incoming, response) => {
    const pieces: Buffer[] = [];
    incoming.on('data', (piece: Buffer) => pieces.push(piece));
    incoming.on('end', () => {
      const body = Buffer.concat(pieces).toString('utf8');
      if (incoming.headers['x-bench'] !== 'bare') sent.body = body;
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      response.end(stream ? answers[api].streamed : answers[api].whole);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A bare fetch: the body the adapter sent, the answer read as JSON or as each event's JSON. */
async function bareFetch(url: string, body: string, stream: boolean): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', 'x-bench': 'bare' },
    body,
  });
  const text = await response.text();
  if (!stream) return JSON.parse(text) as unknown;
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

async function measure(api: keyof typeof answers): Promise<Array<[string, number, number]>> {
  const sent = { body: '' };
  const server = await serve(api, sent);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const model: ChatModel =
    api === 'responses'
      ? new OpenAIResponsesModel({ baseUrl: `${base}/v1`, model: 'recorded', apiKey: 'sk-bench', maxRetries: 0 })
      : new AnthropicModel({ baseUrl: base, model: 'recorded', apiKey: 'sk-bench', maxRetries: 0 });
  const path = api === 'responses' ? `${base}/v1/responses` : `${base}/v1/messages`;
  const requests = 300;
  const rows: Array<[string, number, number]> = [];
  for (const stream of [false, true]) {
    // One call first: the SDK loads and the body the adapter sends is kept for the bare fetch.
    if (stream) await model.chatStream!(request, () => undefined);
    else await model.chat(request);
    const body = sent.body;
    const adapter = await microsPerRequest(requests, () =>
      stream ? model.chatStream!(request, () => undefined) : model.chat(request),
    );
    const bare = await microsPerRequest(requests, () => bareFetch(path, body, stream));
    rows.push([stream ? 'streamed' : 'whole', adapter, bare]);
  }
  server.closeAllConnections();
  server.close();
  return rows;
}

export async function run(): Promise<void> {
  console.log('| adapter | answer | adapter | bare fetch | ratio |');
  console.log('|---|---|---|---|---|');
  for (const [api, name] of [
    ['responses', 'OpenAIResponsesModel'],
    ['anthropic', 'AnthropicModel'],
  ] as const) {
    for (const [mode, adapter, bare] of await measure(api))
      console.log(
        `| ${name} | ${mode} | ${format(adapter)} µs | ${format(bare)} µs | ${(adapter / bare).toFixed(2)}× |`,
      );
  }
}
