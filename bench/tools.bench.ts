// Tool execution: executor overhead per call for a trivial zod-validated tool, and calculator latency cold and warm.
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { calculatorTool } from '../src/tools/calculator.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { collectGarbage, format, median, timeMs } from './measure.js';

async function executorOverhead(): Promise<void> {
  const echo = defineTool({
    name: 'echo',
    description: 'Echoes its text.',
    parameters: z.strictObject({ text: z.string().max(100), times: z.number().int().min(1).max(3).default(1) }),
    execute: (args) => args.text.repeat(args.times),
  });
  const tools = new ToolRegistry([echo]);
  const call = { id: 'bench', name: 'echo', arguments: '{"text":"hello","times":2}' };
  const calls = 20_000;
  const direct: number[] = [];
  const batched: number[] = [];
  for (let round = 0; round < 7; round++) {
    collectGarbage();
    const sequentialMs = await timeMs(async () => {
      for (let index = 0; index < calls; index++) await tools.execute(call);
    });
    direct.push((sequentialMs * 1000) / calls);
    const batch = Array.from({ length: 8 }, () => call);
    const batchedMs = await timeMs(async () => {
      for (let index = 0; index < calls / 8; index++) await tools.executeAll(batch);
    });
    batched.push((batchedMs * 1000) / calls);
  }
  console.log(
    `executor: ${format(median(direct), 2)} µs per call one at a time (JSON parse, zod, timer, result; median of 7 x ${format(calls, 0)})`,
  );
  console.log(`executor: ${format(median(batched), 2)} µs per call in executeAll batches of 8 (concurrency 4)`);
}

async function calculatorLatency(): Promise<void> {
  const calculator = calculatorTool();
  const tools = new ToolRegistry([calculator]);
  const calculate = async (expression: string) => {
    const started = performance.now();
    const result = await tools.execute({ id: 'bench', name: 'calculator', arguments: JSON.stringify({ expression }) });
    if (!result.ok) throw new Error(`calculator bench: ${result.error.message}`);
    return performance.now() - started;
  };
  const coldMs = await calculate('17 * 23 + 4');
  const warm: number[] = [];
  for (let index = 0; index < 300; index++) warm.push(await calculate(`${index} * 23 + sqrt(16)`));
  const units: number[] = [];
  for (let index = 0; index < 100; index++) units.push(await calculate(`${index} inch to cm`));
  const killStarted = performance.now();
  const hostile = await tools.with({ defaultTimeoutMs: 10_000 }).execute({
    id: 'h',
    name: 'calculator',
    arguments: JSON.stringify({ expression: 'sum(map(ones(3000, 3000), f(x) = x + 1))' }),
  });
  const killMs = performance.now() - killStarted;
  const respawnStarted = performance.now();
  await calculator.warm();
  const respawnMs = performance.now() - respawnStarted;
  await calculator.close();
  console.log(`calculator: cold first call ${format(coldMs, 0)} ms (starts the worker process, loads mathjs)`);
  console.log(
    `calculator: warm ${format(median(warm), 2)} ms median per call (arithmetic, 300 calls), p95 ${format(percentile(warm, 0.95), 2)} ms; unit conversion ${format(median(units), 2)} ms median`,
  );
  console.log(
    `calculator: runaway expression ends as ${hostile.ok ? 'ok' : hostile.error.kind} after ${format(killMs, 0)} ms (2 s kill timer); the replacement worker is ready ${format(respawnMs, 0)} ms later`,
  );
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

export async function run(): Promise<void> {
  await executorOverhead();
  await calculatorLatency();
}
