// One contender of the agent bench, measured alone in this process (agent.bench.ts starts one process per
// measurement, so the contenders never share JIT feedback or heap): `node --import tsx --expose-gc
// bench/agent-contender.ts turn|concurrent engine|lean|loop` prints one JSON line.
import { z } from 'zod';
import { reactPipeline } from '../pipelines/index.js';
import {
  runPipeline,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ToolBox,
  type ToolResult,
} from '../src/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { collectGarbage, median, timeMs } from './measure.js';

// Strict, as defineTool makes every tool schema; async, as real tools are: both sides do the same work.
const addArguments = z.strictObject({ a: z.number(), b: z.number() });
const add = async (args: z.infer<typeof addArguments>) => String(args.a + args.b);
const tools = new ToolRegistry([
  defineTool({ name: 'add', description: 'Adds two numbers.', parameters: addArguments, execute: add }),
]);
/** The same validation as the hand-written loop behind the ToolBox port: no timeout, abort or output cap per call. */
const leanTools: ToolBox = {
  definitions: () => tools.definitions(),
  executeAll(calls) {
    return Promise.all(
      calls.map(async (call): Promise<ToolResult> => {
        const parsed = addArguments.safeParse(JSON.parse(call.arguments));
        return parsed.success
          ? { ok: true, content: await add(parsed.data), durationMs: 0 }
          : {
              ok: false,
              error: { kind: 'invalid_arguments', message: parsed.error.message, retryable: false },
              durationMs: 0,
            };
      }),
    );
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
      if (turn + 1 >= turns)
        return { content: 'done', toolCalls: [], finishReason: 'stop', usage, model: 'bench', latencyMs: 0 };
      const call = { id: `call_${turn}`, name: 'add', arguments: `{"a":${turn},"b":2}` };
      return { content: '', toolCalls: [call], finishReason: 'tool_calls', usage, model: 'bench', latencyMs: 0 };
    },
  };
}

/** The same work without the engine: ask, validate, call, append, repeat. */
async function handWrittenLoop(model: ChatModel, task: string, maxTurns: number): Promise<string> {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You can call add.' },
    { role: 'user', content: task },
  ];
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

export type Contender = 'engine' | 'unguarded' | 'lean' | 'loop';

function starter(contender: Contender, turns: number, delayMs: number): () => Promise<unknown> {
  const model = scriptedModel(turns, delayMs);
  // 'unguarded': the same ReAct pipeline without its default guards (the floor the guards' cost is measured against).
  const pipeline = reactPipeline({
    maxIterations: turns,
    ...(contender === 'unguarded' && { guards: false as const }),
  });
  if (contender === 'loop') return () => handWrittenLoop(model, 'add', turns);
  const deps = { model, tools: contender === 'lean' ? leanTools : tools };
  return () => runPipeline(pipeline, { task: 'add' }, { deps });
}

/**
 * µs per turn of runs of 10 turns, one run after another: best and median of 9 rounds of 2,000 runs, after 2 of
 * warm-up; wall time, and CPU time of this process (the steadier figure when other work shares the cores).
 */
async function turnCost(
  contender: Contender,
): Promise<{ best: number; median: number; cpuBest: number; cpuMedian: number }> {
  const turns = 10;
  const runs = 2_000;
  const start = starter(contender, turns, 0);
  const check = await start();
  if (check !== undefined && typeof check === 'object' && (check as { iterations?: number }).iterations !== turns)
    throw new Error('bench pipeline misbehaves');
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  // Two rounds of warm-up (the JIT), then 9 measured. No forced collection between rounds: it shrinks the young
  // generation, so the next round promotes more, and its times then swing by half with the collector.
  for (let round = -2; round < 9; round++) {
    const cpuBefore = process.cpuUsage();
    const ms = await timeMs(async () => {
      for (let index = 0; index < runs; index++) await start();
    });
    const cpu = process.cpuUsage(cpuBefore);
    if (round < 0) continue;
    samples.push((ms * 1_000) / (runs * turns));
    cpuSamples.push((cpu.user + cpu.system) / (runs * turns));
  }
  return {
    best: Math.min(...samples),
    median: median(samples),
    cpuBest: Math.min(...cpuSamples),
    cpuMedian: median(cpuSamples),
  };
}

/** 5,000 concurrent runs of 5 turns, the model waiting 10 ms a turn: wall time (best and median of 3), heap a parked run keeps. */
async function concurrent(contender: Contender): Promise<{ best: number; median: number; retainedKiB: number }> {
  const runs = 5_000;
  const start = starter(contender, 5, 10);
  await Promise.all(Array.from({ length: 200 }, start));
  const walls: number[] = [];
  for (let round = 0; round < 3; round++) {
    walls.push(await timeMs(() => Promise.all(Array.from({ length: runs }, start))));
  }
  // Retained: a forced collection while every run waits in its first model call (not part of the timed rounds).
  collectGarbage();
  const base = process.memoryUsage().heapUsed;
  const all = Promise.all(Array.from({ length: runs }, start));
  await new Promise((resolve) => setTimeout(resolve, 3));
  collectGarbage();
  const retainedKiB = (process.memoryUsage().heapUsed - base) / runs / 1024;
  await all;
  return { best: Math.min(...walls), median: median(walls), retainedKiB };
}

const [mode, contender] = process.argv.slice(2) as ['turn' | 'concurrent', Contender];
if (!['engine', 'unguarded', 'lean', 'loop'].includes(contender) || !['turn', 'concurrent'].includes(mode)) {
  console.error('usage: agent-contender.ts turn|concurrent engine|unguarded|lean|loop');
  process.exit(2);
}
console.log(JSON.stringify(mode === 'turn' ? await turnCost(contender) : await concurrent(contender)));
