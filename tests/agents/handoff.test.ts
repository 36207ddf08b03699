import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { answeredBy } from '../../src/agents/handoff-conversation.js';
import { handoff } from '../../src/agents/handoff.js';
import { runPipeline as recordedRun } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { runPipeline } from '../../src/engine/runner.js';
import { outputOf } from '../../src/engine/run-output.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { RunEvent } from '../../src/engine/stage.js';
import type { Usage } from '../../src/engine/state.js';
import type { ChatMessage } from '../../src/model/types.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolBox } from '../../src/engine/tool-port.js';
import { testCalculator } from '../support/stage-tools.js';

const usage = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  estimated: false,
});
const transfer = (name: string, id = `call_${name}`) => ({ id, name: `transfer_to_${name}`, arguments: '{}' });
const triageDeps = { agent: { path: ['triage'] } };
const task = 'I was charged twice for order 42';
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

describe('a handoff chain and a typed target', () => {
  /** triage hands to desk, which hands to refunds; refunds answers (with a typed output when given a schema). */
  function chain(refundsPipeline = reactPipeline()) {
    const refundsModel = new ScriptedModel([
      { content: 'Refunded order 42.', usage: usage(30, 3) },
      { content: '{"order":42,"refunded":true}', usage: usage(5, 2) },
    ]);
    const refunds = handoff({
      name: 'refunds',
      description: 'Refunds.',
      pipeline: refundsPipeline,
      deps: { model: refundsModel },
    });
    const deskModel = new ScriptedModel([{ toolCalls: [transfer('refunds', 'call_r')], usage: usage(20, 2) }]);
    const desk = handoff({
      name: 'desk',
      description: 'The service desk.',
      pipeline: reactPipeline({ handoffs: true }),
      deps: { model: deskModel, tools: new ToolRegistry([refunds]) },
    });
    const triageModel = new ScriptedModel([{ toolCalls: [transfer('desk', 'call_d')], usage: usage(10, 1) }]);
    return { deps: { ...triageDeps, model: triageModel, tools: new ToolRegistry([desk]) }, refundsModel, refunds };
  }

  it('answeredBy names the agent at the end of the chain; the slot and the handoff event show the whole chain', async () => {
    const { deps } = chain();
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline({ handoffs: true }),
      { task },
      { deps: { ...deps, onEvent: (event) => events.push(event) } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'Refunded order 42.' });
    expect(answeredBy(result)).toBe('refunds');
    const runOf = (agent: string) =>
      events.find((event) => event.type === 'run_started' && event.agent === agent)!.runId;
    const [deskRun, refundsRun] = [runOf('triage/desk'), runOf('triage/desk/refunds')];
    expect(result.state.handoff).toEqual({
      agent: 'desk',
      runId: deskRun,
      chain: [
        { agent: 'desk', runId: deskRun },
        { agent: 'refunds', runId: refundsRun },
      ],
    });
    const handed = events.filter((event) => event.type === 'handoff').map((event) => [event.agent, event.data]);
    expect(handed).toEqual([
      ['triage/desk', { agent: 'refunds', runId: refundsRun, status: 'completed', answeredBy: 'refunds' }],
      [undefined, { agent: 'desk', runId: deskRun, status: 'completed', answeredBy: 'refunds' }],
    ]);
    expect(result.usage).toEqual(usage(10 + 20 + 30, 1 + 2 + 3));
  });

  it("a target with an output schema: its typed output is the run's output, its answer the run's answer", async () => {
    const { deps, refundsModel } = chain(
      reactPipeline({ outputSchema: z.object({ order: z.number(), refunded: z.boolean() }) }),
    );
    const result = await runPipeline(reactPipeline({ handoffs: true }), { task }, { deps });
    refundsModel.assertConsumed();
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'Refunded order 42.',
      output: { order: 42, refunded: true },
    });
    expect(outputOf(result, z.object({ order: z.number(), refunded: z.boolean() }))).toEqual({
      order: 42,
      refunded: true,
    });
    expect(answeredBy(result)).toBe('refunds');
  });

  it('recorded: the chain and the output survive replay, and a target the store already has finished gives them too', async () => {
    const store = memoryStore();
    const schema = z.object({ order: z.number(), refunded: z.boolean() });
    const { deps } = chain(reactPipeline({ outputSchema: schema }));
    const result = await recordedRun(
      reactPipeline({ handoffs: true }),
      { task },
      { store, deps: { ...deps, ids: { newId: () => 'triage-run' } } },
    );
    expect(answeredBy(result)).toBe('refunds');
    expect(result.state.handoff?.chain).toEqual([
      { agent: 'desk', runId: 'triage-run.call_d' },
      { agent: 'refunds', runId: 'triage-run.call_d.call_r' },
    ]);
    expect(result.output).toEqual({ order: 42, refunded: true });
    const replay = await replayRun(store, 'triage-run', { pipeline: reactPipeline({ handoffs: true }) });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
    expect(answeredBy(replay.result)).toBe('refunds');
    expect(replay.result.output).toEqual({ order: 42, refunded: true });

    // The caller died after its target finished and before the handoff call was journaled: a new caller under the
    // same id finds the finished target in the store and takes its recorded outcome, chain and output included.
    const second = memoryStore();
    const earlier = chain(reactPipeline({ outputSchema: schema }));
    const deskDeps = {
      model: new ScriptedModel([{ toolCalls: [transfer('refunds', 'call_r')] }]),
      tools: new ToolRegistry([earlier.refunds]),
      agent: { path: ['triage', 'desk'] },
    };
    const desk = await recordedRun(
      reactPipeline({ handoffs: true }),
      { task },
      {
        store: second,
        runId: 'triage-run.call_d',
        record: { parent: 'triage-run', agent: 'triage/desk' },
        deps: deskDeps,
      },
    );
    expect(answeredBy(desk)).toBe('refunds');
    const fresh = chain(reactPipeline({ outputSchema: schema }));
    const resumed = await recordedRun(
      reactPipeline({ handoffs: true }),
      { task },
      { store: second, deps: { ...fresh.deps, ids: { newId: () => 'triage-run' } } },
    );
    expect(fresh.refundsModel.requests).toHaveLength(0);
    expect(answeredBy(resumed)).toBe('refunds');
    expect(resumed.output).toEqual({ order: 42, refunded: true });
  });
});
