// The run's `agents` tree (#43): every agent run under a run with its whole usage, its cost at each model's listed
// price, and its own agents; the root span counts them (`stageloop.agents.count`) and `--json` prints the tree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { jsonOutput } from '../../app/cli/output.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { enableAsyncContext, makeTracing } from '../tracing/span-tree.js';
import { ask, usage } from './agent-fixtures.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

describe('the agents tree', () => {
  it('holds each agent run with its usage, cost and children; the root span counts them; --json prints it', async () => {
    const checker = agentTool({
      name: 'checker',
      description: 'Checks a fact.',
      pipeline: reactPipeline({ guards: false }),
      deps: {
        model: new ScriptedModel([{ content: 'ok', usage: usage(100, 10) }], { modelName: 'claude-sonnet-4-5' }),
      },
    });
    const researcherModel = new ScriptedModel(
      [
        { toolCalls: [ask('checker', 'Is Paris the capital?')], usage: usage(500, 20) },
        { content: 'Paris, checked', usage: usage(600, 30) },
      ],
      { modelName: 'gpt-4o-mini' },
    );
    const researcher = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline({ guards: false }),
      deps: { model: researcherModel, tools: new ToolRegistry([checker]) },
    });
    const model = new ScriptedModel(
      [
        { toolCalls: [ask('researcher', 'Capital of France?')], usage: usage(1000, 100) },
        { content: 'Paris it is', usage: usage(1200, 50) },
      ],
      { modelName: 'gpt-4o' },
    );
    const tracing = makeTracing();
    const deps = instrumentDeps({ model, tools: new ToolRegistry([researcher]) }, { tracer: tracing.tracer });
    const result = await runPipeline(reactPipeline({ guards: false }), { task: 'capital?' }, { deps });
    expect(result.answer).toBe('Paris it is');
    // Listed prices (USD per million tokens): claude-sonnet-4-5 3 in / 15 out, gpt-4o-mini 0.15 in / 0.6 out.
    const checkerCost = (100 * 3 + 10 * 15) / 1e6;
    const researcherOwn = (1100 * 0.15 + 50 * 0.6) / 1e6;
    expect(result.agents).toEqual([
      {
        name: 'researcher',
        runId: expect.any(String),
        model: 'gpt-4o-mini',
        usage: usage(1200, 60),
        cost: expect.closeTo(researcherOwn + checkerCost, 12),
        children: [
          {
            name: 'checker',
            runId: expect.any(String),
            model: 'claude-sonnet-4-5',
            usage: usage(100, 10),
            cost: expect.closeTo(checkerCost, 12),
            children: [],
          },
        ],
      },
    ]);
    // The caller's usage holds its agents' (one run, one set of limits).
    expect(result.usage).toEqual(usage(1000 + 1200 + 1200, 100 + 50 + 60));
    const root = tracing.spans().find((span) => span.parentSpanContext === undefined)!;
    expect(root.name).toBe('invoke_agent react');
    expect(root.attributes['stageloop.agents.count']).toBe(2);
    expect(jsonOutput(result).agents).toEqual(result.agents);
  });

  it('a run that called no agent has no tree, and its root span counts 0', async () => {
    const tracing = makeTracing();
    const deps = instrumentDeps({ model: new ScriptedModel([{ content: 'hi' }]) }, { tracer: tracing.tracer });
    const result = await runPipeline(reactPipeline({ guards: false }), { task: 'hello' }, { deps });
    expect(result.agents).toBeUndefined();
    expect('agents' in jsonOutput(result)).toBe(false);
    const root = tracing.spans().find((span) => span.parentSpanContext === undefined)!;
    expect(root.attributes['stageloop.agents.count']).toBe(0);
  });
});
