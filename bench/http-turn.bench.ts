// The turn over HTTP (issue 46): the `openai` SDK against a loopback Chat Completions server, stageloop's ReAct run
// beside a hand-written loop making the same requests, whole and streamed. One process, rounds interleaved; the
// figure is CPU per turn of the process (client and server: the server does the same work for both), as a ratio.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { z } from 'zod';
import { reactPipeline } from '../pipelines/index.js';
import { runPipeline } from '../src/index.js';
import { OpenAIChatModel } from '../src/model/openai-model.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { format, median } from './measure.js';

const turns = 5;
const addArguments = z.strictObject({ a: z.number(), b: z.number() });
const add = async (args: z.infer<typeof addArguments>) => String(args.a + args.b);
const tools = new ToolRegistry([
  defineTool({ name: 'add', description: 'Adds two numbers.', parameters: addArguments, execute: add }),
]);
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** Calls `add` until the request holds `turns - 1` tool replies, then answers: whole JSON or server-sent events. */
function serve(): Promise<Server> {
  const server = createServer((incoming, response) => {
    const pieces: Buffer[] = [];
    incoming.on('data', (piece: Buffer) => pieces.push(piece));
    incoming.on('end', () => {
      const body = JSON.parse(Buffer.concat(pieces).toString('utf8')) as { stream?: boolean; messages: unknown[] };
      const turn = body.messages.filter((message) => (message as { role: string }).role === 'tool').length;
      const done = turn + 1 >= turns;
      const call = {
        id: `call_${turn}`,
        type: 'function',
        function: { name: 'add', arguments: `{"a":${turn},"b":2}` },
      };
      const head = { id: 'chatcmpl-bench', created: 1, model: 'bench' };
      if (body.stream !== true) {
        const message = done
          ? { role: 'assistant', content: 'done' }
          : { role: 'assistant', content: null, tool_calls: [call] };
        const finish = done ? 'stop' : 'tool_calls';
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            ...head,
            object: 'chat.completion',
            choices: [{ index: 0, message, finish_reason: finish }],
            usage,
          }),
        );
        return;
      }
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const events = done
        ? [chunk({ role: 'assistant', content: 'do' }, null), chunk({ content: 'ne' }, null), chunk({}, 'stop')]
        : [
            chunk(
              { role: 'assistant', tool_calls: [{ index: 0, ...call, function: { name: 'add', arguments: '' } }] },
              null,
            ),
            chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, null),
            chunk({}, 'tool_calls'),
          ];
      const tail = `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\ndata: [DONE]\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(events.join('') + tail);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const definitions = [
  {
    type: 'function' as const,
    function: { name: 'add', description: 'Adds two numbers.', parameters: tools.definitions()[0]!.parameters },
  },
];

/** The same work without the engine, on the SDK: ask, validate, call, append, repeat. */
async function handWrittenLoop(client: OpenAI, stream: boolean): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You can call add.' },
    { role: 'user', content: 'add' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const reply = stream
      ? await streamedReply(client, messages)
      : (await client.chat.completions.create({ model: 'bench', messages, tools: definitions })).choices[0]!.message;
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return reply.content ?? '';
    messages.push({ role: 'assistant', content: reply.content, tool_calls: calls });
    for (const call of calls) {
      if (call.type !== 'function') continue;
      const parsed = addArguments.safeParse(JSON.parse(call.function.arguments));
      const content = parsed.success ? await add(parsed.data) : `Error: ${parsed.error.message}`;
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  return 'gave up';
}

/** A streamed reply put together from its deltas, as a hand-written streaming loop does. */
async function streamedReply(
  client: OpenAI,
  messages: OpenAI.ChatCompletionMessageParam[],
): Promise<OpenAI.ChatCompletionMessage> {
  const events = await client.chat.completions.create({
    model: 'bench',
    messages,
    tools: definitions,
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  const calls: OpenAI.ChatCompletionMessageFunctionToolCall[] = [];
  for await (const event of events) {
    const delta = event.choices[0]?.delta;
    if (delta === undefined) continue;
    if (delta.content) content += delta.content;
    for (const piece of delta.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name = piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
    }
  }
  return { role: 'assistant', content, refusal: null, ...(calls.length > 0 && { tool_calls: calls }) };
}

/** CPU µs per turn of each contender, `rounds` interleaved rounds of `runs` runs, after 2 of warm-up. */
export async function httpTurnRatios(
  url: string,
  rounds = 9,
  runs = 30,
): Promise<Record<string, { cpu: number[]; wall: number[] }>> {
  const client = new OpenAI({ baseURL: url, apiKey: 'sk-bench', maxRetries: 0 });
  const model = new OpenAIChatModel({ baseUrl: url, model: 'bench', apiKey: 'sk-bench', maxRetries: 0 });
  const pipeline = reactPipeline({ maxIterations: turns });
  // Someone listening makes the engine stream (think streams only then); the listener reads nothing.
  const listened = { model, tools, onEvent: () => undefined };
  const contenders: Array<[string, () => Promise<unknown>]> = [
    ['loop, whole', () => handWrittenLoop(client, false)],
    ['stageloop, whole', () => runPipeline(pipeline, { task: 'add' }, { deps: { model, tools } })],
    ['loop, streamed', () => handWrittenLoop(client, true)],
    ['stageloop, streamed', () => runPipeline(pipeline, { task: 'add' }, { deps: listened })],
  ];
  // Every contender must do the same work: a run of `turns` turns that ends with the server's answer.
  for (const [name, start] of contenders) {
    const outcome = (await start()) as string | { answer: string | null; iterations: number };
    const answer = typeof outcome === 'string' ? outcome : outcome.iterations === turns ? outcome.answer : null;
    if (answer !== 'done') throw new Error(`http-turn bench: ${name} misbehaves (${JSON.stringify(outcome)})`);
  }
  const samples: Record<string, { cpu: number[]; wall: number[] }> = {};
  for (const [name] of contenders) samples[name] = { cpu: [], wall: [] };
  for (let round = -2; round < rounds; round++) {
    for (const [name, start] of contenders) {
      const before = process.cpuUsage();
      const began = performance.now();
      for (let index = 0; index < runs; index++) await start();
      const wall = performance.now() - began;
      const cpu = process.cpuUsage(before);
      if (round < 0) continue;
      samples[name]!.cpu.push((cpu.user + cpu.system) / (runs * turns));
      samples[name]!.wall.push((wall * 1000) / (runs * turns));
    }
  }
  return samples;
}

export async function run(): Promise<void> {
  const server = await serve();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const samples = await httpTurnRatios(url);
    console.log(`A ReAct turn over HTTP (openai SDK, loopback server in this process; ${turns} turns a run, CPU):`);
    for (const mode of ['whole', 'streamed']) {
      const loop = samples[`loop, ${mode}`]!;
      const engine = samples[`stageloop, ${mode}`]!;
      const ratio = median(engine.cpu) / median(loop.cpu);
      console.log(
        `  ${mode}: stageloop ${format(median(engine.cpu), 0)} µs, loop ${format(median(loop.cpu), 0)} µs a turn: ` +
          `${format(ratio, 2)}x the loop (goal <= 1.2x); wall ${format(median(engine.wall) / median(loop.wall), 2)}x`,
      );
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
