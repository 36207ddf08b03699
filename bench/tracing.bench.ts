// Tracing overhead: per-turn cost of a ReAct run (real stages and ToolRegistry, an instant model, a trivial tool)
// with tracing off, with the API but no SDK, and with the SDK (batch processor, as otel.config.ts) and an
// in-memory exporter.
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import {
  emptyUsage,
  runPipeline,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type Deps,
} from '../src/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { instrumentDeps } from '../src/tracing/instrument.js';
import { reactPipeline } from '../pipelines/index.js';
import { format, median } from './measure.js';

const turnsPerRun = 20;
const runsPerSample = 20;
const samples = 25;

/** Answers instantly: a tool call on every turn but the last, then a final answer. No cloning, no waiting. */
class InstantModel implements ChatModel {
  readonly provider = 'bench';
  readonly modelName = 'instant';

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const turn = request.messages.filter((message) => message.role === 'assistant').length + 1;
    const toolCalls =
      turn < turnsPerRun ? [{ id: `call_${turn}`, name: 'echo', arguments: `{"text":"turn ${turn}"}` }] : [];
    const usage = { ...emptyUsage(), inputTokens: 10, outputTokens: 2 };
    return {
      content: toolCalls.length > 0 ? '' : 'done',
      toolCalls,
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      usage,
      model: this.modelName,
      latencyMs: 0,
    };
  }
}

const echo = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const pipeline = reactPipeline({ maxIterations: turnsPerRun + 1 });

/**
 * CPU microseconds per turn over `runsPerSample` sequential runs. CPU time of this process rather than wall time:
 * the development machine is shared, and other processes' load would swamp differences of a few microseconds.
 */
async function sampleMicroseconds(makeDeps: () => Partial<Deps>): Promise<number> {
  // No forced collection here: its concurrent sweeping would land in the sample; garbage is part of the cost.
  const before = process.cpuUsage();
  for (let run = 0; run < runsPerSample; run++) {
    const result = await runPipeline(pipeline, { task: 'bench' }, { deps: makeDeps() });
    if (result.iterations !== turnsPerRun) throw new Error(`bench run ended early: ${result.stopReason.message}`);
    // A real model call does I/O; without this the instant model never lets timers and exports run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (runsPerSample * turnsPerRun);
}

const plainDeps = () => ({ model: new InstantModel(), tools: new ToolRegistry([echo]) });

export async function run(): Promise<void> {
  // The SDK as `--trace otlp` sets it up (batch processing), with an in-memory exporter; the AsyncLocalStorage context manager is
  // enabled only around the SDK samples so the other modes do not pay for its async hooks.
  const exporter = new InMemorySpanExporter();
  const processor = new BatchSpanProcessor(exporter, {
    maxQueueSize: 10_000,
    maxExportBatchSize: 512,
    scheduledDelayMillis: 50,
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer: Tracer = provider.getTracer('stageloop');
  let spansPerRun = 0;
  const modes: Record<'off' | 'apiOnly' | 'sdk' | 'offWithHooks', () => Promise<number>> = {
    off: () => sampleMicroseconds(plainDeps),
    apiOnly: () => sampleMicroseconds(() => instrumentDeps(plainDeps())),
    sdk: () =>
      withAsyncContext(async () => {
        const value = await sampleMicroseconds(() => instrumentDeps(plainDeps(), { tracer }));
        await processor.forceFlush();
        spansPerRun = exporter.getFinishedSpans().length / runsPerSample;
        exporter.reset();
        return value;
      }),
    offWithHooks: () => withAsyncContext(() => sampleMicroseconds(plainDeps)),
  };
  const measured: Record<keyof typeof modes, number[]> = { off: [], apiOnly: [], sdk: [], offWithHooks: [] };
  // Interleaved rounds so JIT warm-up and machine noise fall on every mode alike; the first round is warm-up.
  for (let round = 0; round <= samples; round++) {
    for (const mode of Object.keys(modes) as Array<keyof typeof modes>) {
      const value = await modes[mode]();
      if (round > 0) measured[mode].push(value);
    }
  }
  await provider.shutdown();

  const off = median(measured.off);
  const line = (label: string, values: number[], note = '') => {
    const value = median(values);
    console.log(
      `  ${label.padEnd(40)}${format(value, 2).padStart(8)} µs CPU per turn  (${format(value / off, 2)}x)${note}`,
    );
  };
  console.log(
    `ReAct per-turn cost: ${turnsPerRun} turns per run, ${runsPerSample} runs per sample, median of ${samples} interleaved samples; ${spansPerRun} spans per run with the SDK`,
  );
  line('tracing off', measured.off);
  line('API only, no SDK registered', measured.apiOnly);
  line('SDK + in-memory exporter + ALS context', measured.sdk, '  target <= 1.3x');
  line('tracing off, ALS context manager on', measured.offWithHooks);
  const perSpan = (median(measured.sdk) - off) / (spansPerRun / turnsPerRun);
  console.log(
    `  SDK cost per span: ${format(perSpan, 1)} µs (${format(spansPerRun / turnsPerRun, 1)} spans per turn: iteration, 4 stages, chat, tool)`,
  );
}

async function withAsyncContext<Result>(body: () => Promise<Result>): Promise<Result> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  try {
    return await body();
  } finally {
    context.disable();
    manager.disable();
  }
}
