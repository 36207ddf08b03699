// What the default guards add to a ReAct turn: CPU time (process.cpuUsage, so other processes on a shared machine do
// not count) in one process, the variants alternated round by round so they share the machine's state; best round.
import { z } from 'zod';
import { reactPipeline } from '../pipelines/index.js';
import { definePipeline, runPipeline, type ChatModel, type ChatRequest, type ChatResponse } from '../src/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { format, median } from './measure.js';

const addArguments = z.strictObject({ a: z.number(), b: z.number() });
const tools = new ToolRegistry([
  defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: addArguments,
    execute: async (args) => String(args.a + args.b),
  }),
]);
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };
const turns = 10;

/** Calls `add` until the conversation has `turns - 1` tool calls, then answers. */
const model: ChatModel = {
  provider: 'bench',
  modelName: 'bench',
  async chat(request: ChatRequest): Promise<ChatResponse> {
    let turn = 0;
    for (const message of request.messages) if (message.role === 'assistant') turn++;
    if (turn + 1 >= turns)
      return { content: 'done', toolCalls: [], finishReason: 'stop', usage, model: 'bench', latencyMs: 0 };
    return {
      content: '',
      toolCalls: [{ id: `call_${turn}`, name: 'add', arguments: `{"a":${turn},"b":2}` }],
      finishReason: 'tool_calls',
      usage,
      model: 'bench',
      latencyMs: 0,
    };
  },
};

const variants: Record<string, ReturnType<typeof reactPipeline>> = {
  'guards: false': reactPipeline({ maxIterations: turns, guards: false }),
  'default guards': reactPipeline({ maxIterations: turns }),
};
// GUARDS_BENCH_EACH=1: also each default guard alone, to see where the cost is.
if (process.env.GUARDS_BENCH_EACH === '1') {
  variants['only limits (every guard 0)'] = reactPipeline({ maxIterations: turns, guards: { noGuards: true } });
  variants['token budget only'] = reactPipeline({ maxIterations: turns, guards: { contextBudget: 0, loopLimit: 0 } });
  variants['pruning only'] = reactPipeline({ maxIterations: turns, guards: { maxTokens: 0, loopLimit: 0 } });
  variants['repeated-call guard only'] = reactPipeline({
    maxIterations: turns,
    guards: { maxTokens: 0, contextBudget: 0 },
  });
  variants['the guard stages as no-ops (dispatch alone)'] = withNoOpGuards(variants['default guards']!);
}

/** The same pipeline with each guard stage replaced by one of its name that does nothing: what dispatching them costs. */
function withNoOpGuards(pipeline: ReturnType<typeof reactPipeline>): ReturnType<typeof reactPipeline> {
  const guards = new Set(['limits', 'budget-start', 'budget', 'prune', 'loop-guard', 'loop-guard-history']);
  const swap = (stages: typeof pipeline.setup) =>
    stages.map((stage) => (guards.has(stage.name) ? { name: stage.name, execute: () => undefined } : stage));
  return definePipeline({ ...pipeline, setup: swap(pipeline.setup), iteration: swap(pipeline.iteration) });
}
type Variant = string;

async function round(variant: Variant, runs: number): Promise<number> {
  const pipeline = variants[variant]!;
  const started = process.cpuUsage();
  for (let index = 0; index < runs; index++) await runPipeline(pipeline, { task: 'add' }, { deps: { model, tools } });
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (runs * turns);
}

export async function run(rounds = Number(process.env.GUARDS_BENCH_ROUNDS ?? 16), runs = 1_000): Promise<void> {
  const best: Record<Variant, number> = Object.fromEntries(Object.keys(variants).map((variant) => [variant, Infinity]));
  // Each round's ratio to the guards: false round beside it: rounds share the machine's load, so their median is steadier than the best rounds' ratio.
  const ratios: Record<Variant, number[]> = Object.fromEntries(Object.keys(variants).map((variant) => [variant, []]));
  for (let index = -2; index < rounds; index++) {
    const perTurn: Record<Variant, number> = {};
    for (const variant of Object.keys(variants)) perTurn[variant] = await round(variant, runs);
    if (index < 0) continue;
    for (const variant of Object.keys(variants)) {
      best[variant] = Math.min(best[variant]!, perTurn[variant]!);
      ratios[variant]!.push(perTurn[variant]! / perTurn['guards: false']!);
    }
  }
  console.log(
    `ReAct turn, CPU µs (10-turn runs, ${rounds} rounds x ${runs} runs each, alternated; best round, and the median of the rounds' ratios):`,
  );
  for (const variant of Object.keys(variants)) {
    console.log(
      `  ${variant}: ${format(best[variant]!, 2)} µs per turn, ${format(best[variant]! / best['guards: false']!, 2)}x of guards: false (median ${format(median(ratios[variant]!), 2)}x)`,
    );
  }
  console.log(
    `  default guards: ${format(median(ratios['default guards']!), 3)}x of guards: false, median of rounds (target <= 1.1x)`,
  );
}
