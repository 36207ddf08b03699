// The fault bench's measuring process (run by faults.bench.ts with --expose-gc): concurrent and sequential ReAct runs
// with injected model and tool faults; checks every run's outcome and answer against its own number.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { reactPipeline } from '../pipelines/index.js';
import { runPipeline, type RunResult } from '../src/engine/runner.js';
import { ModelError, emptyUsage, type ChatModel, type ChatRequest, type ChatResponse } from '../src/model/types.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { collectGarbage } from './measure.js';

/** Run n's fault, by n mod 40: 5% model faults (an error, a hang), 5% tool faults (a throw, a hang). */
type Fault = 'none' | 'model_error' | 'model_hang' | 'tool_throw' | 'tool_hang';
const faultOf = (n: number): Fault =>
  (({ 3: 'model_error', 23: 'model_hang', 11: 'tool_throw', 31: 'tool_hang' }) as Record<number, Fault>)[n % 40] ??
  'none';
const numberIn = (text: string) => Number(/run (\d+)/.exec(text)?.[1] ?? Number.NaN);

/** A model that asks for `n * 2` and then answers with what the tool said; it knows runs only by their messages. */
const model: ChatModel = {
  provider: 'bench',
  modelName: 'bench-model',
  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const n = numberIn(request.messages.find((message) => message.role === 'user')?.content ?? '');
    const toolReply = request.messages.find((message) => message.role === 'tool');
    const fault = faultOf(n);
    if (request.purpose === 'think' && toolReply === undefined) {
      if (fault === 'model_error') throw new ModelError('server', 'injected 503');
      if (fault === 'model_hang')
        await new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new ModelError('aborted', 'aborted'))),
        );
    }
    await sleep(1 + (n % 4));
    const base = {
      toolCalls: [],
      finishReason: 'stop' as const,
      usage: { ...emptyUsage(), inputTokens: 20, outputTokens: 5 },
      model: 'bench-model',
      latencyMs: 1,
    };
    if (request.purpose !== 'think') return { ...base, content: `summary for run ${n}` };
    if (toolReply === undefined)
      return {
        ...base,
        finishReason: 'tool_calls',
        content: '',
        toolCalls: [{ id: `call-${n}`, name: 'double', arguments: JSON.stringify({ run: n }) }],
      };
    return { ...base, content: `run ${n}: ${toolReply.content}` };
  },
};

const tools = new ToolRegistry([
  defineTool({
    name: 'double',
    description: 'Doubles the run number.',
    parameters: z.object({ run: z.number() }),
    timeoutMs: 50,
    async execute({ run }) {
      const fault = faultOf(run);
      if (fault === 'tool_throw') throw new Error(`injected tool failure in run ${run}`);
      if (fault === 'tool_hang') await new Promise(() => {});
      await sleep(1);
      return `run ${run} doubled is ${run * 2}`;
    },
  }),
]);

const pipeline = reactPipeline({ maxIterations: 4 });
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

interface Tally {
  outcomes: Record<string, number>;
  leaks: number;
  wrongOutcome: number;
  finalizeNotOnce: number;
}

/** What run n must end with, and the only run number its answer and messages may contain. */
function check(n: number, result: RunResult, tally: Tally): void {
  tally.outcomes[result.status] = (tally.outcomes[result.status] ?? 0) + 1;
  const fault = faultOf(n);
  const expectedStatus = fault === 'model_error' ? 'failed' : fault === 'model_hang' ? 'cancelled' : 'completed';
  if (result.status !== expectedStatus) tally.wrongOutcome++;
  if (result.stages.some((stage) => stage.zone === 'finalize' && stage.calls !== 1)) tally.finalizeNotOnce++;
  const texts = [result.answer ?? '', ...result.state.messages.map((message) => message.content)];
  const others = texts
    .flatMap((text) => [...text.matchAll(/run (\d+)/g)].map((match) => Number(match[1])))
    .filter((number) => number !== n);
  const answerRight =
    fault === 'none'
      ? result.answer === `run ${n}: run ${n} doubled is ${n * 2}`
      : fault.startsWith('tool')
        ? result.answer?.startsWith(`run ${n}: Error`) === true
        : (result.answer ?? '') !== '';
  if (others.length > 0 || !answerRight) tally.leaks++;
}

function cancelAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('the bench cancelled a hung run')), ms);
  return controller.signal;
}

function runOne(n: number): Promise<RunResult> {
  // A referenced timer: AbortSignal.timeout's is unref'd, and a hung run must not let the process exit under it.
  const signal = faultOf(n) === 'model_hang' ? cancelAfter(100) : undefined;
  return runPipeline(
    pipeline,
    { task: `run ${n}: double the run number` },
    { deps: { model, tools }, ...(signal ? { signal } : {}) },
  );
}

const newTally = (): Tally => ({ outcomes: {}, leaks: 0, wrongOutcome: 0, finalizeNotOnce: 0 });
const heapMiB = () => process.memoryUsage().heapUsed / 1024 / 1024;

async function main(): Promise<void> {
  for (let n = 0; n < 200; n++) await runOne(n); // warm-up
  const concurrent = newTally();
  let started = performance.now();
  const results = await Promise.all(Array.from({ length: 1_000 }, (_, n) => runOne(n)));
  results.forEach((result, n) => check(n, result, concurrent));
  const concurrentMs = performance.now() - started;

  const sequential = newTally();
  collectGarbage();
  const heapBefore = heapMiB();
  const heapAt: number[] = [];
  started = performance.now();
  for (let n = 0; n < 10_000; n++) {
    check(n, await runOne(n), sequential);
    if (n % 2_500 === 2_499) {
      collectGarbage();
      heapAt.push(heapMiB());
    }
  }
  const sequentialMs = performance.now() - started;
  await sleep(50);
  console.log(
    JSON.stringify({
      concurrentMs,
      concurrent,
      sequentialMs,
      sequential,
      heapBefore,
      heapAt,
      unhandled: unhandled.length,
    }),
  );
}

await main();
