// Agent turn cost: a ReAct run through the built-in stages against a hand-written loop doing the same work.
import { z } from 'zod';
import { reactPipeline } from '../pipelines/index.js';
import { runPipeline, type ChatMessage, type ChatModel, type ChatRequest, type ChatResponse, type Pipeline, type ToolBox, type ToolResult } from '../src/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { collectGarbage, format, median, timeMs } from './measure.js';

// Strict, as defineTool makes every tool schema; async, as real tools are: both sides do the same work.
const addArguments = z.strictObject({ a: z.number(), b: z.number() });
const add = async (args: z.infer<typeof addArguments>) => String(args.a + args.b);
const tools = new ToolRegistry([defineTool({ name: 'add', description: 'Adds two numbers.', parameters: addArguments, execute: add })]);
/** The same validation as the hand-written loop behind the ToolBox port: no timeout, abort or output cap per call. */
const leanTools: ToolBox = {
  definitions: () => tools.definitions(),
  executeAll(calls) {
    return Promise.all(calls.map(async (call): Promise<ToolResult> => {
      const parsed = addArguments.safeParse(JSON.parse(call.arguments));
      return parsed.success ? { ok: true, content: await add(parsed.data), durationMs: 0 } : { ok: false, error: { kind: 'invalid_arguments', message: parsed.error.message, retryable: false }, durationMs: 0 };
    }));
  },
};
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

/** A model that calls `add` until the conversation has `turns - 1` tool calls, then answers; optionally waits first. */
function scriptedModel(turns: number, delayMs = 0): ChatModel {
  return {
    provider: 'bench',
    modelName: 'bench',
    async chat(request: ChatRequest): Promise<ChatResponse> {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      let turn = 0;
      for (const message of request.messages) if (message.role === 'assistant') turn++;
      if (turn + 1 >= turns) return { content: 'done', toolCalls: [], finishReason: 'stop', usage, model: 'bench', latencyMs: 0 };
      const call = { id: `call_${turn}`, name: 'add', arguments: `{"a":${turn},"b":2}` };
      return { content: '', toolCalls: [call], finishReason: 'tool_calls', usage, model: 'bench', latencyMs: 0 };
    },
  };
}

/** The same work without the engine: ask, validate, call, append, repeat. */
async function handWrittenLoop(model: ChatModel, task: string, maxTurns: number): Promise<string> {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You can call add.' }, { role: 'user', content: task }];
  const definitions = tools.definitions();
  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await model.chat({ messages: [...messages], tools: definitions, purpose: 'think' });
    if (response.toolCalls.length === 0) return response.content;
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    for (const call of response.toolCalls) {
      const parsed = addArguments.safeParse(JSON.parse(call.arguments));
      const content = parsed.success ? await add(parsed.data) : `Error: ${parsed.error.message}`;
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
    }
  }
  return 'gave up';
}

async function turnCost(): Promise<void> {
  const turns = 10;
  const runs = 2_000;
  const model = scriptedModel(turns);
  const pipeline: Pipeline = reactPipeline({ maxIterations: turns });
  const check = await runPipeline(pipeline, { task: 'add' }, { deps: { model, tools } });
  if (check.answer !== 'done' || check.iterations !== turns) throw new Error(`bench pipeline misbehaves: ${check.status} after ${check.iterations} turns`);
  const samples = { engine: [] as number[], lean: [] as number[], loop: [] as number[] };
  const perTurn = (ms: number) => (ms * 1_000) / (runs * turns);
  const bodies: Record<keyof typeof samples, () => Promise<unknown>> = {
    engine: () => runPipeline(pipeline, { task: 'add' }, { deps: { model, tools } }),
    lean: () => runPipeline(pipeline, { task: 'add' }, { deps: { model, tools: leanTools } }),
    loop: () => handWrittenLoop(model, 'add', turns),
  };
  const order = ['engine', 'lean', 'loop'] as const;
  // 9 rounds, the order rotating so each contender runs first, second and third equally often (the position matters).
  for (let round = 0; round < 9; round++) {
    for (let slot = 0; slot < order.length; slot++) {
      const key = order[(round + slot) % order.length]!;
      collectGarbage();
      samples[key].push(perTurn(await timeMs(async () => {
        for (let index = 0; index < runs; index++) await bodies[key]();
      })));
    }
  }
  // On a shared machine the best round is the closest to the intrinsic cost; the median shows the noise.
  const [engine, lean, loop] = [Math.min(...samples.engine), Math.min(...samples.lean), Math.min(...samples.loop)];
  const medians = `medians ${[samples.loop, samples.engine, samples.lean].map((values) => format(median(values), 2)).join(' / ')} µs`;
  console.log(`ReAct turn (10 turns: 9 zod-validated tool calls + answer, instant model, best of 9 rounds x ${format(runs, 0)} runs; ${medians}):`);
  console.log(`  hand-written loop ${format(loop, 2)} µs`);
  console.log(`  stageloop with ToolRegistry ${format(engine, 2)} µs, ratio ${format(engine / loop, 2)}x (target <= 3x)`);
  console.log(`  stageloop with a lean ToolBox (same validation as the loop) ${format(lean, 2)} µs, ratio ${format(lean / loop, 2)}x`);
}

/** Wall time of `runs` concurrent runs; no forced collection inside, so nothing but the runs is timed. */
async function concurrentWall(runs: number, start: () => Promise<unknown>): Promise<number> {
  collectGarbage();
  return timeMs(() => Promise.all(Array.from({ length: runs }, start)));
}

/** Heap a parked run keeps: a forced collection while every run waits in its first 10 ms model call. */
async function retainedPerRun(runs: number, start: () => Promise<unknown>): Promise<number> {
  collectGarbage();
  const base = process.memoryUsage().heapUsed;
  const all = Promise.all(Array.from({ length: runs }, start));
  await new Promise((resolve) => setTimeout(resolve, 3));
  collectGarbage();
  const retained = process.memoryUsage().heapUsed - base;
  await all;
  return retained / runs / 1024;
}

async function concurrentRuns(): Promise<void> {
  const runs = 5_000;
  const turns = 5;
  const model = scriptedModel(turns, 10);
  const pipeline = reactPipeline({ maxIterations: turns });
  const contenders: Record<'engine' | 'lean' | 'loop', { label: string; start: () => Promise<unknown> }> = {
    engine: { label: 'stageloop with ToolRegistry', start: () => runPipeline(pipeline, { task: 'add' }, { deps: { model, tools } }) },
    lean: { label: 'stageloop with a lean ToolBox', start: () => runPipeline(pipeline, { task: 'add' }, { deps: { model, tools: leanTools } }) },
    loop: { label: 'hand-written loop', start: () => handWrittenLoop(model, 'add', turns) },
  };
  console.log(`${format(runs, 0)} concurrent ReAct runs (5 turns, model awaits 10 ms a turn; best of 5 interleaved rounds, median in brackets):`);
  const walls = { engine: [] as number[], lean: [] as number[], loop: [] as number[] };
  for (let round = 0; round < 5; round++) {
    for (const key of ['engine', 'lean', 'loop'] as const) walls[key].push(await concurrentWall(runs, contenders[key].start));
  }
  for (const key of ['engine', 'lean', 'loop'] as const) {
    const retained = await retainedPerRun(runs, contenders[key].start);
    console.log(`  ${contenders[key].label}: wall ${format(Math.min(...walls[key]), 0)} ms (${format(median(walls[key]), 0)}), heap retained per in-flight run ${format(retained, 2)} KiB`);
  }
  const loopWall = Math.min(...walls.loop);
  console.log(
    `  best-round wall ratio: with ToolRegistry ${format(Math.min(...walls.engine) / loopWall, 2)}x, with a lean ToolBox ${format(Math.min(...walls.lean) / loopWall, 2)}x (target <= 1.5x); heap target <= 10 KiB per in-flight run`,
  );
}

export async function run(): Promise<void> {
  await turnCost();
  await concurrentRuns();
}
