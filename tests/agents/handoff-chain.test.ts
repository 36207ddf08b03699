// handoff along a chain (triage -> desk -> refunds) and to a target with an output schema, recorded and replayed;
// apart from handoff.test.ts (one handoff, filters, limits) to keep each file short.
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
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { task, transfer, triageDeps, usage } from './agent-fixtures.js';

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
