// What the tracing benches share: a scripted ReAct run (the real reactPipeline stages and ToolRegistry, an instant
// model answering a tool call on every turn but the last, a trivial tool), CPU time per turn, the SDK as
// `--trace otlp` sets it up (batch processor) over an in-memory exporter, and the SDK's floor for a span tree.
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
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
import { reactPipeline } from '../pipelines/index.js';

/** Answers instantly: a tool call on every turn but the last, then a final answer. No cloning, no waiting. */
export class InstantModel implements ChatModel {
  readonly provider = 'bench';
  readonly modelName = 'instant';

  constructor(private readonly turns: number) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const turn = request.messages.filter((message) => message.role === 'assistant').length + 1;
    const toolCalls =
      turn < this.turns ? [{ id: `call_${turn}`, name: 'echo', arguments: `{"text":"turn ${turn}"}` }] : [];
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

export const echo = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** A ReAct run of `turns` turns with the default guards, for `deps` made fresh per run. */
export function reactRun(turns: number): (deps: Partial<Deps>) => Promise<void> {
  const pipeline = reactPipeline({ maxIterations: turns + 1 });
  return async (deps) => {
    const result = await runPipeline(pipeline, { task: 'bench' }, { deps });
    if (result.iterations !== turns) throw new Error(`bench run ended early: ${result.stopReason.message}`);
  };
}

export const plainDeps = (turns: number) => ({ model: new InstantModel(turns), tools: new ToolRegistry([echo]) });

/**
 * CPU microseconds per turn over `runs` sequential runs. CPU time of this process rather than wall time: the
 * development machine is shared, and other processes' load would swamp differences of a few microseconds.
 */
export async function cpuPerTurn(runs: number, turns: number, runOnce: () => Promise<unknown>): Promise<number> {
  // No forced collection here: its concurrent sweeping would land in the sample; garbage is part of the cost.
  const before = process.cpuUsage();
  for (let run = 0; run < runs; run++) {
    await runOnce();
    // A real model call does I/O; without this the instant model never lets timers and exports run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (runs * turns);
}

/** The SDK as `--trace otlp` sets it up (batch processing), exporting into memory. */
export function benchTracerProvider(): {
  provider: BasicTracerProvider;
  tracer: Tracer;
  exporter: InMemorySpanExporter;
  flushed: () => Promise<ReadableSpan[]>;
} {
  const exporter = new InMemorySpanExporter();
  const processor = new BatchSpanProcessor(exporter, {
    maxQueueSize: 10_000,
    maxExportBatchSize: 512,
    scheduledDelayMillis: 50,
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const flushed = async () => {
    await processor.forceFlush();
    const spans = [...exporter.getFinishedSpans()];
    exporter.reset();
    return spans;
  };
  return { provider, tracer: provider.getTracer('stageloop'), exporter, flushed };
}

/** Runs `body` with the AsyncLocalStorage context manager on (only around it: the other modes pay no hooks). */
export async function withAsyncContext<Result>(body: () => Promise<Result>): Promise<Result> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  try {
    return await body();
  } finally {
    context.disable();
    manager.disable();
  }
}

interface SpanShape {
  name: string;
  kind: ReadableSpan['kind'];
  attributes: ReadableSpan['attributes'];
  children: SpanShape[];
}

/** The span tree a run made (names, kinds, final attributes, nesting), to make again with the SDK alone. */
export function spanShapes(spans: readonly ReadableSpan[]): SpanShape[] {
  const byId = new Map<string, SpanShape>();
  const started = [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  for (const span of started)
    byId.set(span.spanContext().spanId, {
      name: span.name,
      kind: span.kind,
      attributes: span.attributes,
      children: [],
    });
  const roots: SpanShape[] = [];
  for (const span of started) {
    const shape = byId.get(span.spanContext().spanId)!;
    const parent = span.parentSpanContext && byId.get(span.parentSpanContext.spanId);
    (parent === undefined ? roots : parent.children).push(shape);
  }
  return roots;
}

/**
 * The SDK's floor for a span tree: each span started with its attributes ready, made the active context around an
 * async body (as a stage's span is around its work) that makes its children, and ended. No engine, no attributes
 * built, no events: what the SDK and the AsyncLocalStorage context cost for these spans alone.
 */
export async function makeSpans(tracer: Tracer, shapes: readonly SpanShape[]): Promise<void> {
  for (const shape of shapes) {
    const span = tracer.startSpan(shape.name, { kind: shape.kind, attributes: shape.attributes });
    await context.with(trace.setSpan(context.active(), span), () => makeSpans(tracer, shape.children));
    span.end();
  }
}
