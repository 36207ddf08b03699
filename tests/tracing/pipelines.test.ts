// Span trees of the built-in pipelines, with real stages, a real ToolRegistry and the scripted or offline model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanStatusCode } from '@opentelemetry/api';
import { runPipeline, type ChatModel, type Pipeline } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { testCalculator } from '../support/stage-tools.js';
import { enableAsyncContext, makeTracing, singleTree, spanForest, treeLines, type Tracing } from './span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

function tracedRun(tracing: Tracing, pipeline: Pipeline, model: ChatModel, task: string, signal?: AbortSignal) {
  return runPipeline(
    pipeline,
    { task },
    { signal, deps: instrumentDeps({ model, tools: new ToolRegistry([testCalculator]) }, { tracer: tracing.tracer }) },
  );
}

const usage = { inputTokens: 50, outputTokens: 10, cachedInputTokens: 20, reasoningTokens: 0, estimated: false };
const parallelSums = {
  toolCalls: [
    { name: 'calculator', arguments: '{"expression":"2+3"}' },
    { name: 'calculator', arguments: '{"expression":"4*5"}' },
  ],
  usage,
};

const reactIteration = (n: number, chat: string, tools: string[]) => [
  `  iteration ${n}`,
  '    stage think',
  `      ${chat}`,
  '    stage act',
  ...tools.map((tool) => `      execute_tool ${tool}`),
  '    stage observe',
  '    stage evaluate',
];

/** One plan iteration while steps run side by side: each stage's span holds one span per running step. */
const stepIteration = (n: number, step: string, chat: string, tools: string[]) => [
  `  iteration ${n}`,
  '    stage think',
  `      stage think-${step}`,
  `        ${chat}`,
  '    stage act',
  `      stage act-${step}`,
  ...tools.map((tool) => `        execute_tool ${tool}`),
  '    stage observe',
  `      stage observe-${step}`,
  '    stage evaluate',
  `      stage evaluate-${step}`,
];

const offlinePlanExecuteReplanTree = [
  'invoke_workflow plan-execute-replan',
  '  stage context',
  '  stage plan',
  '    chat stageloop-offline [CLIENT]',
  // A plan step is a span under the root from its start to its end, across the iterations that work on it.
  '  step s1',
  ...stepIteration(1, 's1', 'chat stageloop-offline [CLIENT]', ['calculator']),
  '    stage replan',
  ...stepIteration(2, 's1', 'chat stageloop-offline [CLIENT]', []),
  '    stage replan',
  '      chat stageloop-offline [CLIENT]',
  '  step s2',
  ...stepIteration(3, 's2', 'chat stageloop-offline [CLIENT]', ['calculator']),
  '    stage replan',
  ...stepIteration(4, 's2', 'chat stageloop-offline [CLIENT]', []),
  '    stage replan',
  '      chat stageloop-offline [CLIENT]',
  '  stage summarize',
  '    chat stageloop-offline [CLIENT]',
];

describe('reactPipeline span tree', () => {
  it('parallel tool calls are sibling execute_tool spans under stage act; usage totals on the root', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([parallelSums, { content: '5 and 20', usage }]);
    const result = await tracedRun(tracing, reactPipeline({ guards: false }), model, 'compute 2+3 and 4*5');
    expect(result.status).toBe('completed');
    const root = singleTree(tracing.spans());
    expect(treeLines(root)).toEqual([
      'invoke_agent react',
      '  stage context',
      ...reactIteration(1, 'chat scripted-model [CLIENT]', ['calculator', 'calculator']),
      ...reactIteration(2, 'chat scripted-model [CLIENT]', []),
      '  stage summarize',
    ]);
    expect(root.span.attributes).toMatchObject({
      'gen_ai.agent.name': 'react',
      'stageloop.status': 'completed',
      'stageloop.stop_reason.kind': 'completed',
      'stageloop.stop_reason.stage': 'think',
      'stageloop.iterations': 2,
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.usage.cache_read.input_tokens': 40,
    });
    const act = root.children[1]!.children[1]!;
    expect(act.children.map((node) => node.span.attributes['gen_ai.tool.call.id'])).toEqual(['call_1_1', 'call_1_2']);
    for (const tool of act.children) expect(tool.span.parentSpanContext?.spanId).toBe(act.span.spanContext().spanId);
    const chat = root.children[1]!.children[0]!.children[0]!.span;
    expect(chat.attributes).toMatchObject({
      'stageloop.purpose': 'think',
      'gen_ai.usage.input_tokens': 50,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
  });

  it('a failing model call: stage think ERROR with an exception event, the run failed, summarize still under the root', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([parallelSums, new Error('model exploded'), { content: 'summary' }]);
    const result = await tracedRun(tracing, reactPipeline({ guards: false }), model, 'compute');
    expect(result.status).toBe('failed');
    const root = singleTree(tracing.spans());
    expect(treeLines(root)).toEqual([
      'invoke_agent react',
      '  stage context',
      ...reactIteration(1, 'chat scripted-model [CLIENT]', ['calculator', 'calculator']),
      '  iteration 2',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '  stage summarize',
      '    chat scripted-model [CLIENT]',
    ]);
    expect(root.children[3]!.children[0]!.span.attributes['stageloop.purpose']).toBe('summarize');
    const failedThink = root.children[2]!.children[0]!.span;
    expect(failedThink.status.code).toBe(SpanStatusCode.ERROR);
    expect(failedThink.events.map((event) => event.name)).toEqual(['exception']);
    expect(root.span.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.span.attributes['stageloop.status']).toBe('failed');
  });

  it('a cancelled run ends its tree where the cancellation hit, then finalize', async () => {
    const tracing = makeTracing();
    const controller = new AbortController();
    const model = new ScriptedModel([
      parallelSums,
      () => {
        controller.abort(new Error('user pressed Ctrl-C'));
        return { content: 'too late' };
      },
      { content: 'summary' },
    ]);
    const result = await tracedRun(tracing, reactPipeline({ guards: false }), model, 'compute', controller.signal);
    expect(result.status).toBe('cancelled');
    const root = singleTree(tracing.spans());
    expect(treeLines(root)).toEqual([
      'invoke_agent react',
      '  stage context',
      ...reactIteration(1, 'chat scripted-model [CLIENT]', ['calculator', 'calculator']),
      '  iteration 2',
      '    stage think',
      '      chat scripted-model [CLIENT]',
      '  stage summarize',
    ]);
    expect(root.span.attributes).toMatchObject({
      'stageloop.status': 'cancelled',
      'stageloop.stop_reason.kind': 'cancelled',
    });
  });
});

describe('planExecuteReplanPipeline span tree', () => {
  it('plan sits under the root in setup; replan and summarize calls nest under their stages', async () => {
    const tracing = makeTracing();
    const result = await tracedRun(
      tracing,
      planExecuteReplanPipeline({ guards: false }),
      new OfflineModel(),
      'Compute 2 + 3, then multiply the result by 4',
    );
    expect(result.status).toBe('completed');
    const root = singleTree(tracing.spans());
    expect(treeLines(root)).toEqual(offlinePlanExecuteReplanTree);
    const purposes = tracing
      .spans()
      .filter((span) => span.name.startsWith('chat '))
      .map((span) => span.attributes['stageloop.purpose']);
    expect(new Set(purposes)).toEqual(new Set(['plan', 'think', 'replan', 'summarize']));
    expect(root.span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'plan-execute-replan',
      'stageloop.stop_reason.stage': 'replan',
      'stageloop.iterations': 4,
    });
    const steps = tracing.spans().filter((span) => span.name.startsWith('step '));
    expect(steps.map((span) => span.attributes)).toEqual([
      {
        'stageloop.plan.step.id': 's1',
        'stageloop.plan.step.depends_on': [],
        'stageloop.plan.step.outcome': 'completed',
      },
      {
        'stageloop.plan.step.id': 's2',
        'stageloop.plan.step.depends_on': ['s1'],
        'stageloop.plan.step.outcome': 'completed',
      },
    ]);
  });
});

describe('concurrent runs of both pipelines', () => {
  it('never share a trace, and each tree is the one a lone run gives', async () => {
    const tracing = makeTracing();
    const [reactResult, replanResult] = await Promise.all([
      tracedRun(tracing, reactPipeline({ guards: false }), new OfflineModel(), 'What is (2 + 3) * 4?'),
      tracedRun(
        tracing,
        planExecuteReplanPipeline({ guards: false }),
        new OfflineModel(),
        'Compute 2 + 3, then multiply the result by 4',
      ),
    ]);
    const roots = spanForest(tracing.spans());
    expect(roots).toHaveLength(2);
    const reactRoot = roots.find((root) => root.span.name === 'invoke_agent react')!;
    const replanRoot = roots.find((root) => root.span.name === 'invoke_workflow plan-execute-replan')!;
    expect(reactRoot.span.spanContext().traceId).not.toBe(replanRoot.span.spanContext().traceId);
    expect(reactRoot.span.attributes['stageloop.run.id']).toBe(reactResult.runId);
    expect(replanRoot.span.attributes['stageloop.run.id']).toBe(replanResult.runId);
    expect(treeLines(replanRoot)).toEqual(offlinePlanExecuteReplanTree);
    expect(treeLines(reactRoot)).toEqual([
      'invoke_agent react',
      '  stage context',
      ...reactIteration(1, 'chat stageloop-offline [CLIENT]', ['calculator']),
      ...reactIteration(2, 'chat stageloop-offline [CLIENT]', []),
      '  stage summarize',
    ]);
  });
});
