import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { answeredBy } from '../../src/agents/handoff-conversation.js';
import { handoff } from '../../src/agents/handoff.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import type { ChatMessage } from '../../src/model/types.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolBox } from '../../src/engine/tool-port.js';
import { testCalculator } from '../support/stage-tools.js';
import { task, transfer, triageDeps, usage } from './agent-fixtures.js';

const withoutSystem = (messages: readonly ChatMessage[]) => messages.filter((message) => message.role !== 'system');

describe('handoff: the rest of the run goes to another pipeline', () => {
  it("a triage agent hands off: the specialist gets the conversation, its answer is the run's, answeredBy names it, usage sums", async () => {
    const specialistModel = new ScriptedModel([
      { content: 'Refunded the second charge of order 42.', usage: usage(30, 7) },
    ]);
    const refunds = handoff({
      name: 'refunds',
      description: 'Handles refunds.',
      pipeline: reactPipeline(),
      deps: { model: specialistModel },
    });
    expect(refunds.name).toBe('transfer_to_refunds');
    const triageModel = new ScriptedModel([
      {
        toolCalls: [{ id: 'calc_1', name: 'calculator', arguments: JSON.stringify({ expression: '2 * 21' }) }],
        usage: usage(100, 10),
      },
      { content: 'Handing you to refunds.', toolCalls: [transfer('refunds')], usage: usage(120, 12) },
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline({ handoffs: true }),
      { task },
      {
        deps: {
          ...triageDeps,
          model: triageModel,
          tools: new ToolRegistry([testCalculator, refunds]),
          onEvent: (event) => events.push(event),
        },
      },
    );
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'Refunded the second charge of order 42.',
      stopReason: { kind: 'handoff', stage: 'handoff' },
    });
    expect(answeredBy(result)).toBe('refunds');
    // Not recorded, the target's run has an id of its own; a recorded one's is `<run id>.<call id>`.
    const refundsRun = events.find((event) => event.type === 'run_started' && event.agent === 'triage/refunds')!.runId;
    expect(result.state.handoff).toEqual({
      agent: 'refunds',
      runId: refundsRun,
      chain: [{ agent: 'refunds', runId: refundsRun }],
    });
    // The triage model is not asked again: the specialist answered for the run.
    triageModel.assertConsumed();
    const specialistSaw = specialistModel.requests[0]!.messages;
    // Its own system prompt, then the user's task and the turn before the handoff, without the handing turn.
    expect(specialistSaw[0]!.role).toBe('system');
    expect(withoutSystem(specialistSaw)).toEqual([
      { role: 'user', content: task },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'calc_1', name: 'calculator', arguments: JSON.stringify({ expression: '2 * 21' }) }],
      },
      { role: 'tool', toolCallId: 'calc_1', name: 'calculator', content: '42' },
    ]);
    expect(result.usage).toEqual(usage(100 + 120 + 30, 10 + 12 + 7));
    const handed = events.find((event) => event.type === 'handoff');
    expect(handed?.data).toEqual({ agent: 'refunds', runId: refundsRun, status: 'completed', answeredBy: 'refunds' });
    expect(
      events.find((event) => event.type === 'run_finished' && event.agent === 'triage/refunds')?.data,
    ).toMatchObject({ status: 'completed' });
  });

  it('the input filter decides what the target sees: here the task alone, reworded', async () => {
    const specialistModel = new ScriptedModel([{ content: 'done' }]);
    const refunds = handoff({
      name: 'refunds',
      description: 'Handles refunds.',
      pipeline: reactPipeline(),
      deps: { model: specialistModel },
      inputFilter: (data) => {
        // Editing what it is given changes nothing in the calling run.
        for (const message of data.messages) if (message.role === 'user') message.content = 'edited';
        return { task: `Refund request: ${data.task}`, messages: [] };
      },
    });
    const triageModel = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression: '1 + 1' }) }] },
      { toolCalls: [transfer('refunds')] },
    ]);
    const result = await runPipeline(
      reactPipeline({ handoffs: true }),
      { task },
      { deps: { model: triageModel, tools: new ToolRegistry([testCalculator, refunds]) } },
    );
    expect(result.answer).toBe('done');
    expect(withoutSystem(specialistModel.requests[0]!.messages)).toEqual([
      { role: 'user', content: `Refund request: ${task}` },
    ]);
    expect(result.state.messages.find((message) => message.role === 'user')?.content).toBe(task);
  });

  it('only the first handoff of a turn is taken: the second target never runs', async () => {
    const refundsModel = new ScriptedModel([{ content: 'refunded' }]);
    const billingModel = new ScriptedModel([]);
    const tools = new ToolRegistry([
      handoff({ name: 'refunds', description: 'Refunds.', pipeline: reactPipeline(), deps: { model: refundsModel } }),
      handoff({ name: 'billing', description: 'Billing.', pipeline: reactPipeline(), deps: { model: billingModel } }),
    ]);
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline({ handoffs: true }),
      { task },
      {
        deps: {
          model: new ScriptedModel([{ toolCalls: [transfer('refunds'), transfer('billing')] }]),
          tools,
          onEvent: (event) => events.push(event),
        },
      },
    );
    expect(result.answer).toBe('refunded');
    expect(answeredBy(result)).toBe('refunds');
    expect(billingModel.requests).toHaveLength(0);
    const refused = events.find(
      (event) => event.type === 'tool_result' && event.data.name === 'transfer_to_billing',
    )?.data;
    expect(refused).toMatchObject({ ok: false, error: { kind: 'refused' } });
  });

  it('a target that does not finish stops the run with its stop kind (here the shared token budget)', async () => {
    const greedy = new ScriptedModel(
      Array.from({ length: 10 }, (_, index) => ({
        toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression: `${index} + 1` }) }],
        usage: usage(400, 0),
      })),
    );
    const refunds = handoff({
      name: 'refunds',
      description: 'Refunds.',
      pipeline: reactPipeline(),
      deps: { model: greedy, tools: new ToolRegistry([testCalculator]) },
    });
    const result = await runPipeline(
      reactPipeline({ handoffs: true, guards: { maxTokens: 1000 } }),
      { task },
      {
        deps: {
          model: new ScriptedModel([{ toolCalls: [transfer('refunds')], usage: usage(100, 0) }, { content: 'unused' }]),
          tools: new ToolRegistry([refunds]),
        },
      },
    );
    // 900 tokens were left: the target stops at its third reply, and the run stops with it.
    expect(greedy.requests).toHaveLength(3);
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'budget_tokens', stage: 'handoff' } });
    expect(result.stopReason.message).toContain('handed off to refunds, which did not finish');
    expect(answeredBy(result)).toBe('refunds');
    expect(result.usage.inputTokens).toBe(100 + 1200);
  });

  it('a handoff chain deeper than the limit is refused, and the agent that would have handed off answers instead', async () => {
    let box!: ToolRegistry;
    const lazyTools: ToolBox = {
      definitions: () => box.definitions(),
      executeAll: (calls, signal) => box.executeAll(calls, signal),
    };
    const echoModel = new ScriptedModel([
      { toolCalls: [transfer('echo', 'again')] },
      (request) => ({ content: `echo answers: ${request.messages.at(-1)!.content}` }),
    ]);
    const echo = handoff({
      name: 'echo',
      description: 'Hands off to itself.',
      pipeline: reactPipeline({ handoffs: true }),
      deps: { model: echoModel, tools: lazyTools },
      maxDepth: 1,
    });
    box = new ToolRegistry([echo]);
    const result = await runPipeline(
      reactPipeline({ handoffs: true }),
      { task },
      { deps: { ...triageDeps, model: new ScriptedModel([{ toolCalls: [transfer('echo', 'go')] }]), tools: box } },
    );
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^echo answers: .*at most 1 deep \(triage\/echo\/echo\)/);
    expect(answeredBy(result)).toBe('echo');
    echoModel.assertConsumed();
  });
});
