import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { enableAsyncContext, makeTracing } from '../tracing/span-tree.js';
import { approvalPipeline, loggedCalculator, sum } from './fixtures.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

describe('approval span events', () => {
  it('the approval stage span shows who decided what, without content unless asked', async () => {
    for (const recordContent of [false, true]) {
      const tracing = makeTracing();
      const tools = loggedCalculator([], true);
      const model = new ScriptedModel([{ toolCalls: [sum('2 + 3')] }, { content: 'five' }]);
      const deps = instrumentDeps(
        { model, tools, approve: async () => ({ approve: false, message: 'not now' }) as const },
        { tracer: tracing.tracer, recordContent },
      );
      const result = await runPipeline(approvalPipeline(tools), { task: 'add' }, { deps });
      expect(result.status).toBe('completed');
      // The second turn has no tool calls: its approval span has no events.
      const events = tracing
        .spans()
        .filter((span) => span.name === 'stage approval')
        .flatMap((span) => span.events);
      // Beside our own events, each decision is also a standard guardrail record (the telemetry conventions').
      expect(events.some((event) => event.name === 'gen_ai.guardrail.result')).toBe(true);
      const ours = events.filter((event) => event.name.startsWith('stageloop.'));
      expect(ours.map((event) => event.name)).toEqual(['stageloop.approval_requested', 'stageloop.approval_decided']);
      expect(ours[1]!.attributes).toMatchObject({
        'stageloop.tool': 'calculator',
        'stageloop.approve': false,
        'stageloop.by': 'person',
      });
      expect(ours[1]!.attributes?.['stageloop.message']).toBe(recordContent ? 'not now' : undefined);
      await tracing.shutdown();
    }
  });
});
