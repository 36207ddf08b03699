import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { runPipeline as recordedRun } from '../../src/durable/durable-run.js';
import { runPipeline } from '../../src/engine/runner.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolResult } from '../../src/engine/tool-port.js';
import { testCalculator } from '../support/stage-tools.js';
import { ask, coordinatorDeps, usage } from './agent-fixtures.js';

describe('agentTool: a pipeline as a tool', () => {
  it('a coordinator asks two specialists in one turn; both run side by side, their answers reach it, usage adds up exactly', async () => {
    let writerStarted!: () => void;
    const writerCalled = new Promise<void>((resolve) => (writerStarted = resolve));
    // The researcher answers only once the writer has been asked: it would wait forever if the calls ran one by one.
    const researcherModel = new ScriptedModel([
      async () => (await writerCalled, { content: 'Paris has 2.1 million people', usage: usage(30, 7) }),
    ]);
    const writerModel = new ScriptedModel([
      () => (writerStarted(), { content: 'Paris: small, dense, old.', usage: usage(20, 4) }),
    ]);
    const researcher = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline(),
      deps: { model: researcherModel, tools: new ToolRegistry([testCalculator]) },
    });
    const writer = agentTool({
      name: 'writer',
      description: 'Writes short text.',
      pipeline: reactPipeline(),
      deps: { model: writerModel },
    });
    const coordinatorModel = new ScriptedModel([
      {
        toolCalls: [ask('researcher', 'How many people live in Paris?'), ask('writer', 'Describe Paris in five words')],
        usage: usage(100, 10),
      },
      { content: 'Paris has 2.1 million people. Paris: small, dense, old.', usage: usage(150, 20) },
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Tell me about Paris' },
      {
        deps: {
          ...coordinatorDeps,
          model: coordinatorModel,
          tools: new ToolRegistry([researcher, writer]),
          onEvent: (event) => events.push(event),
        },
      },
    );
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'Paris has 2.1 million people. Paris: small, dense, old.',
    });
    for (const model of [coordinatorModel, researcherModel, writerModel]) model.assertConsumed();
    const toolMessages = coordinatorModel.requests[1]!.messages.filter((message) => message.role === 'tool').map(
      (message) => message.content,
    );
    expect(toolMessages).toEqual(['Paris has 2.1 million people', 'Paris: small, dense, old.']);
    // The child's task is all it sees: its request carries the task, not the coordinator's conversation.
    expect(JSON.stringify(researcherModel.requests[0]!.messages)).toContain('How many people live in Paris?');
    expect(JSON.stringify(researcherModel.requests[0]!.messages)).not.toContain('Tell me about Paris');
    expect(result.usage).toEqual(usage(100 + 150 + 30 + 20, 10 + 20 + 7 + 4));
    // The children's events reach the coordinator's listener, each with its agent path.
    const finished = events
      .filter((event) => event.type === 'run_finished')
      .map((event) => [event.agent, event.data.status, event.data.usage.inputTokens]);
    expect(finished).toEqual(
      expect.arrayContaining([
        ['coordinator/researcher', 'completed', 30],
        ['coordinator/writer', 'completed', 20],
        [undefined, 'completed', 300],
      ]),
    );
    expect(events.filter((event) => event.agent === undefined).map((event) => event.runId)).toEqual(
      events.filter((event) => event.agent === undefined).map(() => result.runId),
    );
  });

  it('a child with an output schema gives its typed output; a structured input reaches its model', async () => {
    const schema = z.object({ city: z.string(), population: z.number() });
    // The answer, then the final-output call that makes it the typed output.
    const childModel = new ScriptedModel([
      { content: 'Paris has 2.1 million people' },
      { content: '{"city":"Paris","population":2100000}' },
    ]);
    const facts = agentTool({
      name: 'facts',
      description: 'Returns facts as JSON.',
      pipeline: reactPipeline({ outputSchema: schema }),
      deps: { model: childModel },
      input: z.object({ city: z.string() }),
    });
    expect(facts.definition.parameters).toMatchObject({ required: ['task', 'input'] });
    const coordinatorModel = new ScriptedModel([
      { toolCalls: [ask('facts', 'Population?', { input: { city: 'Paris' } })] },
      { content: 'done' },
    ]);
    const store = memoryStore();
    const result = await recordedRun(
      reactPipeline(),
      { task: 't' },
      { store, deps: { model: coordinatorModel, tools: new ToolRegistry([facts]) } },
    );
    expect(JSON.stringify(childModel.requests[0]!.messages)).toContain('Input (JSON): {\\"city\\":\\"Paris\\"}');
    const toolMessage = coordinatorModel.requests[1]!.messages.find((message) => message.role === 'tool');
    expect(JSON.parse(toolMessage!.content as string)).toEqual({ city: 'Paris', population: 2100000 });
    // The tool result also carries the typed value itself, with the agent's run, for stages that read results.
    const batch = (await store.journal(result.runId)).find((entry) => entry.kind === 'tool')!.data as unknown as {
      results: ToolResult[];
    };
    expect(batch.results[0]).toMatchObject({
      ok: true,
      agent: { name: 'facts', runId: `${result.runId}.call_1_1`, output: { city: 'Paris', population: 2100000 } },
    });
  });
});
