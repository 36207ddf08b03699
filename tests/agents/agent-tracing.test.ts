// One trace for the whole team: a child agent's run, its stages and its model calls nest under the caller's tool span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { handoff } from '../../src/agents/handoff.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { enableAsyncContext, makeTracing, singleTree, treeLines } from '../tracing/span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

describe('agent tracing', () => {
  it("the child's run span sits under the caller's execute_tool span, with its stages and model calls inside", async () => {
    const tracing = makeTracing();
    const childModel = new ScriptedModel([{ content: 'Paris' }], { modelName: 'researcher-model' });
    const researcher = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline({ guards: false }),
      deps: instrumentDeps({ model: childModel }, { tracer: tracing.tracer }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'researcher', arguments: '{"task":"Capital of France?"}' }] },
      { content: 'Paris it is' },
    ]);
    const deps = instrumentDeps({ model, tools: new ToolRegistry([researcher]) }, { tracer: tracing.tracer });
    const result = await runPipeline(reactPipeline({ guards: false }), { task: 'capital?' }, { deps });
    expect(result.answer).toBe('Paris it is');
    const lines = treeLines(singleTree(tracing.spans()));
    const tool = lines.indexOf('      execute_tool researcher');
    expect(tool).toBeGreaterThan(0);
    expect(lines.slice(tool, tool + 9)).toEqual([
      '      execute_tool researcher',
      '        invoke_agent react',
      '          stage context',
      '          iteration 1',
      '            stage think',
      '              chat researcher-model [CLIENT]',
      '            stage act',
      '            stage observe',
      '            stage evaluate',
    ]);
    expect(new Set(tracing.spans().map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it("a handoff's target runs under the handoff call's span, and the caller's handoff stage follows it", async () => {
    const tracing = makeTracing();
    const targetModel = new ScriptedModel([{ content: 'Paris' }], { modelName: 'geography-model' });
    const geography = handoff({
      name: 'geography',
      description: 'Answers geography.',
      pipeline: reactPipeline({ guards: false }),
      deps: instrumentDeps({ model: targetModel }, { tracer: tracing.tracer }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'transfer_to_geography', arguments: '{}' }] }]);
    const deps = instrumentDeps({ model, tools: new ToolRegistry([geography]) }, { tracer: tracing.tracer });
    const result = await runPipeline(reactPipeline({ guards: false, handoffs: true }), { task: 'capital?' }, { deps });
    expect(result.answer).toBe('Paris');
    const lines = treeLines(singleTree(tracing.spans()));
    const tool = lines.indexOf('      execute_tool transfer_to_geography');
    expect(tool).toBeGreaterThan(0);
    expect(lines.slice(tool + 1, tool + 5)).toEqual([
      '        invoke_agent react',
      '          stage context',
      '          iteration 1',
      '            stage think',
    ]);
    expect(lines.slice(tool)).toContain('              chat geography-model [CLIENT]');
    expect(lines.slice(tool)).toContain('    stage handoff');
  });
});
