// Streaming cost: per streamed token, per event, and the memory a stream's log holds per event nobody read.
// The model is in-process (no HTTP), so the figures are the engine's own cost, not a server's.
import { reactPipeline } from '../pipelines/index.js';
import {
  breakLoop,
  definePipeline,
  runPipeline,
  streamRun,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamEvent,
  type RunEvent,
  type RunStream,
  type Stage,
} from '../src/index.js';
import { collectGarbage, format, median, timeMs } from './measure.js';

declare module '../src/index.js' {
  interface RunEvents {
    bench_tick: { count: number };
  }
}

const tokens = 200;
const piece = 'tok ';
const usage = { inputTokens: 10, outputTokens: tokens, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };
const reply: ChatResponse = {
  content: piece.repeat(tokens),
  toolCalls: [],
  finishReason: 'stop',
  usage,
  model: 'bench',
  latencyMs: 0,
};

const plainModel: ChatModel = { provider: 'bench', modelName: 'bench', chat: async () => reply };
const streamingModel: ChatModel = {
  ...plainModel,
  async chatStream(_request: ChatRequest, onEvent: (event: ChatStreamEvent) => void) {
    for (let index = 0; index < tokens; index++) onEvent({ type: 'text', delta: piece });
    return reply;
  },
};

async function microsPerRun(runs: number, body: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    collectGarbage();
    samples.push(
      ((await timeMs(async () => {
        for (let index = 0; index < runs; index++) await body();
      })) *
        1000) /
        runs,
    );
  }
  return median(samples);
}

async function perToken(): Promise<void> {
  const pipeline = reactPipeline({ think: { useTools: false } });
  const events: RunEvent[] = [];
  const onEvent = (event: RunEvent) => void events.push(event);
  const run = (model: ChatModel) => () =>
    runPipeline(pipeline, { task: 'bench' }, { deps: { model, onEvent } }).then(() => (events.length = 0));
  const runs = 2_000;
  await microsPerRun(200, run(streamingModel));
  const plain = await microsPerRun(runs, run(plainModel));
  const streamed = await microsPerRun(runs, run(streamingModel));
  const viaStream = await microsPerRun(runs, async () => {
    const stream = streamRun(pipeline, { task: 'bench' }, { deps: { model: streamingModel } });
    for await (const text of stream.textStream) void text;
  });
  console.log(
    `observed ReAct run answering in ${tokens} tokens (median of 7 x ${format(runs, 0)} runs): plain call ${format(plain, 1)} µs, streamed ${format(streamed, 1)} µs`,
  );
  console.log(
    `  per streamed token: ${format(((streamed - plain) * 1000) / tokens, 0)} ns with deps.onEvent; ${format(((viaStream - plain) * 1000) / tokens, 0)} ns through streamRun + textStream (${format(viaStream, 1)} µs a run)`,
  );
}

async function perEvent(): Promise<void> {
  const count = 1_000;
  const ticker: Stage = {
    name: 'ticker',
    execute(_state, ctx) {
      for (let index = 0; index < count; index++) ctx.emit('bench_tick', { count: index });
      return breakLoop('done');
    },
  };
  const pipeline = definePipeline({ name: 'ticks', iteration: [ticker], maxIterations: 1 });
  let seen = 0;
  const listened = await microsPerRun(500, () =>
    runPipeline(pipeline, { task: 'bench' }, { deps: { onEvent: () => void seen++ } }),
  );
  const unheard = await microsPerRun(500, () => runPipeline(pipeline, { task: 'bench' }));
  console.log(
    `per event (1,000 emits a run, median of 7 x 500 runs): ${format(((listened - unheard) * 1000) / count, 0)} ns delivered to a listener; ${format((unheard * 1000) / count, 0)} ns an emit costs with nobody listening (whole run / emits)`,
  );
}

async function retainedPerEvent(): Promise<void> {
  const pipeline = reactPipeline({ think: { useTools: false } });
  const streams: RunStream[] = [];
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let index = 0; index < 500; index++) {
    const stream = streamRun(pipeline, { task: 'bench' }, { deps: { model: streamingModel } });
    await stream.result;
    streams.push(stream);
  }
  collectGarbage();
  const held = process.memoryUsage().heapUsed - before;
  const events = streams.reduce((total, stream) => total + stream.events.length, 0);
  console.log(
    `a stream nobody reads: ${format(held / events, 0)} bytes held per event (${format(events / streams.length, 0)} events a run: ${format(held / streams.length / 1024, 1)} KiB a run, until the stream is dropped)`,
  );
}

export async function run(): Promise<void> {
  await perToken();
  await perEvent();
  await retainedPerEvent();
}
