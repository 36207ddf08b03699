// agentTool at its limits: the caller's token budget, cancellation, the depth limit and a child's failure; apart from
// agent-tool.test.ts (asking agents, typed outputs) to keep each file short.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolBox } from '../../src/engine/tool-port.js';
import { testCalculator } from '../support/stage-tools.js';
import { ask, coordinatorDeps, toolResults, usage } from './agent-fixtures.js';

describe('agentTool: a pipeline as a tool', () => {
  it("the caller's token budget stops a greedy child, and every token it spent counts in the caller's usage", async () => {
    const greedy = new ScriptedModel(
      Array.from({ length: 10 }, (_, index) => ({
        toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression: `${index} + 1` }) }],
        usage: usage(400, 0),
      })),
    );
    const child = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline(),
      deps: { model: greedy, tools: new ToolRegistry([testCalculator]) },
    });
    const coordinatorModel = new ScriptedModel([
      { toolCalls: [ask('researcher', 'Count forever')], usage: usage(100, 0) },
      { content: 'I could not finish', usage: usage(50, 5) },
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline({ guards: { maxTokens: 1000 } }),
      { task: 't' },
      {
        deps: {
          ...coordinatorDeps,
          model: coordinatorModel,
          tools: new ToolRegistry([child]),
          onEvent: (event) => events.push(event),
        },
      },
    );
    // 900 tokens were left: the third reply (1,200 in all) spends them and the child stops there.
    expect(greedy.requests).toHaveLength(3);
    const [stopped] = toolResults(events);
    expect(stopped).toMatchObject({ name: 'researcher', ok: false, error: { kind: 'agent_stopped' } });
    expect(stopped!.error!.message).toContain('stopped (budget_tokens)');
    expect(
      events.find((event) => event.type === 'run_finished' && event.agent === 'coordinator/researcher')?.data,
    ).toMatchObject({ status: 'stopped', stopReason: { kind: 'budget_tokens' } });
    // The caller is over its own budget now: it gets its one final turn without tools, and answers.
    expect(coordinatorModel.requests[1]!.tools ?? []).toEqual([]);
    expect(result).toMatchObject({ answer: 'I could not finish' });
    expect(result.usage).toEqual(usage(100 + 1200 + 50, 5));
  });

  it('two greedy children running at once share what is left of the budget; together they do not each spend all of it', async () => {
    const greedyModel = () =>
      new ScriptedModel(
        Array.from({ length: 10 }, (_, index) => ({
          toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression: `${index} + 1` }) }],
          usage: usage(400, 0),
        })),
      );
    const [first, second] = [greedyModel(), greedyModel()];
    const researcher = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline(),
      deps: { model: first, tools: new ToolRegistry([testCalculator]) },
    });
    const writer = agentTool({
      name: 'writer',
      description: 'Writes.',
      pipeline: reactPipeline(),
      deps: { model: second, tools: new ToolRegistry([testCalculator]) },
    });
    const coordinatorModel = new ScriptedModel([
      { toolCalls: [ask('researcher', 'Count forever'), ask('writer', 'Count too')], usage: usage(100, 0) },
      { content: 'Both stopped', usage: usage(50, 5) },
    ]);
    const result = await runPipeline(
      reactPipeline({ guards: { maxTokens: 1000 } }),
      { task: 't' },
      {
        deps: { ...coordinatorDeps, model: coordinatorModel, tools: new ToolRegistry([researcher, writer]) },
      },
    );
    // 900 tokens were left for both: each of the two may overshoot by its one reply in flight, never 900 each.
    const childTokens = (first.requests.length + second.requests.length) * 400;
    expect(childTokens).toBeLessThanOrEqual(900 + 2 * 400);
    expect(first.requests.length + second.requests.length).toBeLessThan(6);
    expect(result.usage.inputTokens).toBe(100 + childTokens + 50);
  });

  it("cancelling the caller cancels the child: the child's run ends cancelled", async () => {
    const controller = new AbortController();
    let onChildFinished!: (event: RunEvent) => void;
    const childFinished = new Promise<RunEvent>((resolve) => (onChildFinished = resolve));
    const wait = defineTool({
      name: 'wait',
      description: 'Waits until stopped.',
      parameters: z.object({}),
      effects: 'none',
      execute: (_args, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve('stopped'));
          controller.abort(new Error('the user pressed Ctrl-C'));
        }),
    });
    const childModel = new ScriptedModel([{ toolCalls: [{ name: 'wait', arguments: '{}' }] }]);
    const child = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline(),
      deps: { model: childModel, tools: new ToolRegistry([wait]) },
    });
    const coordinatorModel = new ScriptedModel([{ toolCalls: [ask('researcher', 'Wait')] }]);
    const result = await runPipeline(
      reactPipeline(),
      { task: 't' },
      {
        signal: controller.signal,
        deps: {
          ...coordinatorDeps,
          model: coordinatorModel,
          tools: new ToolRegistry([child]),
          onEvent: (event) => {
            if (event.type === 'run_finished' && event.agent === 'coordinator/researcher') onChildFinished(event);
          },
        },
      },
    );
    expect(result.status).toBe('cancelled');
    const finished = await childFinished;
    expect(finished.data).toMatchObject({ status: 'cancelled', stopReason: { kind: 'cancelled' } });
  });

  it('an agent that calls itself is refused beyond the depth limit', async () => {
    let box!: ToolRegistry;
    const lazyTools: ToolBox = {
      definitions: () => box.definitions(),
      executeAll: (calls, signal) => box.executeAll(calls, signal),
    };
    // Each level asks itself once more, then answers with what it got back.
    const model = new ScriptedModel([
      { toolCalls: [ask('echo', 'again')] },
      { toolCalls: [ask('echo', 'again')] },
      (request) => ({ content: `deepest saw: ${request.messages.at(-1)!.content}` }),
      { content: 'middle done' },
    ]);
    const echo = agentTool({
      name: 'echo',
      description: 'Asks itself.',
      pipeline: reactPipeline(),
      deps: { model, tools: lazyTools },
      maxDepth: 2,
    });
    box = new ToolRegistry([echo]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline(),
      { task: 't' },
      {
        deps: {
          ...coordinatorDeps,
          model: new ScriptedModel([{ toolCalls: [ask('echo', 'go')] }, { content: 'all done' }]),
          tools: box,
          onEvent: (event) => events.push(event),
        },
      },
    );
    expect(result.answer).toBe('all done');
    const refused = toolResults(events, 'coordinator/echo/echo');
    expect(refused).toEqual([
      expect.objectContaining({ ok: false, error: expect.objectContaining({ kind: 'refused' }) }),
    ]);
    expect(refused[0]!.error!.message).toContain('at most 2 deep (coordinator/echo/echo/echo)');
    model.assertConsumed();
  });

  it("a child's failure is a typed tool error the caller's model reads", async () => {
    const broken = new ScriptedModel([new Error('the model server is down')]);
    const child = agentTool({
      name: 'researcher',
      description: 'Finds facts.',
      pipeline: reactPipeline(),
      deps: { model: broken },
    });
    const coordinatorModel = new ScriptedModel([
      { toolCalls: [ask('researcher', 'Find it')] },
      { content: 'The researcher failed' },
    ]);
    const result = await runPipeline(
      reactPipeline(),
      { task: 't' },
      { deps: { model: coordinatorModel, tools: new ToolRegistry([child]) } },
    );
    expect(result.answer).toBe('The researcher failed');
    const toolMessage = coordinatorModel.requests[1]!.messages.find((message) => message.role === 'tool')!;
    expect(toolMessage.content).toMatch(/agent "researcher" failed \(error\): .*the model server is down/);
    const outcome = result.state.act;
    expect(outcome).toEqual({ executed: 1, failed: 1 });
  });
});
