import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { runPipeline, type ChatModel } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { otelRunTracer } from '../../src/tracing/otel-tracer.js';
import { traceModel } from '../../src/tracing/traced-model.js';
import { toolSpanWrapper } from '../../src/tracing/tool-spans.js';
import { agentPipeline, delay, lookupRegistry, type LookupBehaviour } from './fixtures.js';
import {
  enableAsyncContext,
  findSpan,
  makeTracing,
  singleTree,
  spanForest,
  treeLines,
  type Tracing,
} from './span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

const twoLookups = {
  toolCalls: [
    { name: 'lookup', arguments: '{"q":"a"}' },
    { name: 'lookup', arguments: '{"q":"b"}' },
  ],
};
const usage = { inputTokens: 10, outputTokens: 4, cachedInputTokens: 3, reasoningTokens: 0, estimated: false };

/** Runs the test pipeline with all three tracing seams wired to `tracing`. */
function tracedRun(
  tracing: Tracing,
  model: ChatModel,
  options: { tool?: LookupBehaviour; signal?: AbortSignal; pipeline?: string } = {},
) {
  const { tracer } = tracing;
  return runPipeline(
    agentPipeline(options.pipeline),
    { task: 'look things up' },
    {
      signal: options.signal,
      deps: {
        tracer: otelRunTracer({ tracer }),
        model: traceModel(model, { tracer }),
        tools: lookupRegistry(options.tool, toolSpanWrapper({ tracer })),
      },
    },
  );
}

describe('otelRunTracer', () => {
  it('builds the exact span tree: setup and finalize under the root, parallel tools as siblings', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([
      { ...twoLookups, usage },
      { content: 'done', usage },
    ]);
    // Each lookup ends only once both have started, so their spans overlap by construction, not by timing; then both
    // stay 5 ms more, since a span's start is Date.now() (whole ms): the overlap must be more than that rounding.
    let started = 0;
    let bothStarted: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothStarted = resolve));
    const meetBoth: LookupBehaviour = async (query) => {
      if (++started === 2) bothStarted();
      await together;
      await delay(5);
      return `found ${query}`;
    };
    const result = await tracedRun(tracing, model, { tool: meetBoth });
    expect(result.status).toBe('completed');

    const spans = tracing.spans();
    const root = singleTree(spans);
    expect(treeLines(root)).toEqual([
      'invoke_agent test-agent',
      '  stage prepare',
      '  iteration 1',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '    stage act',
      '      execute_tool lookup',
      '      execute_tool lookup',
      '    stage observe',
      '  iteration 2',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '    stage act',
      '    stage observe',
      '  stage summarize',
    ]);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    // The two tool spans overlap in time: they ran in parallel, as siblings.
    const [first, second] = root.children[1]!.children[1]!.children.map((node) => node.span);
    expect(first!.parentSpanContext!.spanId).toBe(second!.parentSpanContext!.spanId);
    const nanoseconds = (time: [number, number]) => time[0] * 1e9 + time[1];
    expect(nanoseconds(second!.startTime)).toBeLessThan(nanoseconds(first!.endTime));
    expect([first!.attributes['gen_ai.tool.call.id'], second!.attributes['gen_ai.tool.call.id']].sort()).toEqual([
      'call_1_1',
      'call_1_2',
    ]);

    expect(root.span.kind).toBe(SpanKind.INTERNAL);
    expect(root.span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'test-agent',
      'stageloop.run.id': result.runId,
      'stageloop.status': 'completed',
      'stageloop.stop_reason.kind': 'completed',
      'stageloop.stop_reason.stage': 'think',
      'stageloop.iterations': 2,
      'gen_ai.usage.input_tokens': 0, // the test stages do not add usage to the run total
    });
    expect(root.span.status.code).toBe(SpanStatusCode.UNSET);

    const setupStage = findSpan(spans, 'stage prepare');
    expect(setupStage.attributes).toEqual({
      'stageloop.stage.name': 'prepare',
      'stageloop.zone': 'setup',
      'stageloop.iteration': 0,
    });
    expect(findSpan(spans, 'stage summarize').attributes['stageloop.zone']).toBe('finalize');
    expect(findSpan(spans, 'iteration 2').attributes).toEqual({ 'stageloop.iteration': 2 });
    const steeringThink = root.children[2]!.children[0]!.span;
    expect(steeringThink.attributes).toEqual({
      'stageloop.stage.name': 'think',
      'stageloop.zone': 'iteration',
      'stageloop.iteration': 2,
      'stageloop.signal': 'break_loop',
      'stageloop.signal.reason': 'the model answered',
      'stageloop.signal.kind': 'completed',
    });
    expect(root.children[1]!.children[0]!.span.attributes['stageloop.signal']).toBeUndefined();

    const tool = first!;
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' });
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
  });

  it('marks a throwing stage ERROR with an exception event, and still traces finalize under the root', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([twoLookups, new Error('model exploded')]);
    const result = await tracedRun(tracing, model);
    expect(result.status).toBe('failed');

    const spans = tracing.spans();
    expect(treeLines(singleTree(spans))).toEqual([
      'invoke_agent test-agent',
      '  stage prepare',
      '  iteration 1',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '    stage act',
      '      execute_tool lookup',
      '      execute_tool lookup',
      '    stage observe',
      '  iteration 2',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '  stage summarize',
    ]);
    const failedThink = spans
      .filter((span) => span.name === 'stage think')
      .find((span) => span.attributes['stageloop.iteration'] === 2)!;
    expect(failedThink.status).toEqual({ code: SpanStatusCode.ERROR, message: 'model exploded' });
    expect(failedThink.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([
      ['exception', 'model exploded'],
    ]);
    expect(failedThink.attributes['error.type']).toBe('Error');
    const failedChat = spans.filter(
      (span) => span.name === 'chat scripted-model' && span.status.code === SpanStatusCode.ERROR,
    );
    expect(failedChat).toHaveLength(1);
    const root = findSpan(spans, 'invoke_agent test-agent');
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes).toMatchObject({
      'stageloop.status': 'failed',
      'stageloop.stop_reason.kind': 'error',
      'stageloop.stop_reason.stage': 'think',
      'error.type': 'Error',
    });
  });

  it('traces a cancelled run: the stages that ran, then finalize; the root says cancelled', async () => {
    const tracing = makeTracing();
    const controller = new AbortController();
    const cancellingTool: LookupBehaviour = (query) => {
      controller.abort();
      return query;
    };
    const result = await tracedRun(tracing, new ScriptedModel([twoLookups]), {
      tool: cancellingTool,
      signal: controller.signal,
    });
    expect(result.status).toBe('cancelled');
    const root = singleTree(tracing.spans());
    expect(treeLines(root)).toEqual([
      'invoke_agent test-agent',
      '  stage prepare',
      '  iteration 1',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '    stage act',
      '      execute_tool lookup',
      '      execute_tool lookup',
      '  stage summarize',
    ]);
    // The cancel came while act ran its tools: act is named, not the observe stage the runner then skipped.
    expect(root.span.attributes).toMatchObject({
      'stageloop.status': 'cancelled',
      'stageloop.stop_reason.kind': 'cancelled',
      'stageloop.stop_reason.stage': 'act',
    });
    expect(root.span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('keeps two concurrent runs in two traces, each with only its own spans', async () => {
    const tracing = makeTracing();
    const slowTool: LookupBehaviour = async (query) => {
      await delay(5);
      return query;
    };
    const modelA = new ScriptedModel([twoLookups, { content: 'a' }], { modelName: 'model-a' });
    const modelB = new ScriptedModel([twoLookups, twoLookups, { content: 'b' }], { modelName: 'model-b' });
    const [resultA, resultB] = await Promise.all([
      tracedRun(tracing, modelA, { tool: slowTool, pipeline: 'agent-a' }),
      tracedRun(tracing, modelB, { tool: slowTool, pipeline: 'agent-b' }),
    ]);
    const roots = spanForest(tracing.spans());
    expect(roots.map((root) => root.span.name).sort()).toEqual(['invoke_agent agent-a', 'invoke_agent agent-b']);
    const rootA = roots.find((root) => root.span.name === 'invoke_agent agent-a')!;
    const rootB = roots.find((root) => root.span.name === 'invoke_agent agent-b')!;
    expect(rootA.span.spanContext().traceId).not.toBe(rootB.span.spanContext().traceId);
    expect(rootA.span.attributes['stageloop.run.id']).toBe(resultA.runId);
    expect(rootB.span.attributes['stageloop.run.id']).toBe(resultB.runId);
    const chats = (root: typeof rootA) =>
      treeLines(root)
        .filter((line) => line.includes('chat'))
        .map((line) => line.trim());
    expect(chats(rootA)).toEqual(['chat model-a [CLIENT]', 'chat model-a [CLIENT]']);
    expect(chats(rootB)).toEqual(['chat model-b [CLIENT]', 'chat model-b [CLIENT]', 'chat model-b [CLIENT]']);
    expect(treeLines(rootA).filter((line) => line.includes('execute_tool'))).toHaveLength(2);
    expect(treeLines(rootB).filter((line) => line.includes('execute_tool'))).toHaveLength(4);
  });

  it('costs nothing visible without an SDK: the global no-op tracer runs the pipeline unchanged', async () => {
    const model = new ScriptedModel([twoLookups, { content: 'done' }]);
    const result = await runPipeline(
      agentPipeline(),
      { task: 't' },
      {
        deps: {
          tracer: otelRunTracer(),
          model: traceModel(model),
          tools: lookupRegistry(undefined, toolSpanWrapper()),
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('done');
  });

  it('says it is disabled without an SDK (the runner then takes the untraced path) and enabled with a tracer of an SDK', () => {
    const tracing = makeTracing();
    expect(otelRunTracer().enabled?.()).toBe(false);
    expect(otelRunTracer({ tracer: tracing.tracer }).enabled?.()).toBe(true);
  });
});

describe('toolSpanWrapper', () => {
  it('sets error.type to the tool error kind and status ERROR when a call fails', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'missing', arguments: '{}' },
          { name: 'lookup', arguments: '{"wrong":1}' },
        ],
      },
      { content: 'ok' },
    ]);
    await tracedRun(tracing, model);
    const [unknown, invalid] = tracing.spans().filter((span) => span.name.startsWith('execute_tool'));
    expect(unknown!.name).toBe('execute_tool missing');
    expect(unknown!.attributes['error.type']).toBe('unknown_tool');
    expect(unknown!.status.code).toBe(SpanStatusCode.ERROR);
    expect(invalid!.attributes['error.type']).toBe('invalid_arguments');
  });
});
