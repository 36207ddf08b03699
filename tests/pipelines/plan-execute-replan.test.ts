import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { testTools } from '../support/stage-tools.js';

const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });
const planOf = (...descriptions: string[]) => ({
  content: JSON.stringify({ steps: descriptions.map((description) => ({ description, status: 'pending' })) }),
});
const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };

async function run(
  steps: ScriptedStep[],
  options: Parameters<typeof planExecuteReplanPipeline>[0] = {},
  task = 'Compute 12*12, then add 10, then divide by 2',
) {
  const model = new ScriptedModel(steps);
  const events: RunEvent[] = [];
  const result = await runPipeline(
    planExecuteReplanPipeline(options),
    { task },
    { deps: { model, tools: testTools(), onEvent: (event) => events.push(event) } },
  );
  return { model, result, events };
}

describe('plan-execute-replan pipeline (scripted model)', () => {
  it('is context, plan · think, act, observe, evaluate, replan · summarize with a cap of 24', () => {
    const pipeline = planExecuteReplanPipeline({ guards: false });
    expect(
      [pipeline.setup, pipeline.iteration, pipeline.finalize].map((zone) => zone.map((stage) => stage.name)),
    ).toEqual([['context', 'plan'], ['think', 'act', 'observe', 'evaluate', 'replan'], ['summarize']]);
    expect(pipeline.maxIterations).toBe(24);
  });

  it('runs every step, keeps step-local tool traffic out of later steps, and composes the answer from step results', async () => {
    const { model, result } = await run([
      planOf('Compute 12*12', 'Add 10'),
      { toolCalls: [calc('12*12')] },
      { content: '144' },
      keep,
      { toolCalls: [calc('144 + 10')] },
      { content: '154' },
      keep,
      { content: 'The answer is 154.' },
    ]);
    model.assertConsumed();
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'The answer is 154.',
      partial: false,
      stopReason: { kind: 'completed', stage: 'replan' },
    });
    expect(result.state.plan!.results.map((entry) => [entry.step, entry.outcome, entry.output])).toEqual([
      [1, 'completed', '144'],
      [2, 'completed', '154'],
    ]);
    const secondStep = model.requests[4]!.messages;
    expect(secondStep).toHaveLength(2);
    expect(secondStep.some((message) => message.role === 'tool')).toBe(false);
    expect(secondStep[1]!.content).toContain('Current step (2 of 2): Add 10');
  });

  it('a replan rewrites the remaining steps, never the completed one', async () => {
    const { model, result, events } = await run([
      planOf('Compute 12*12', 'Add 10', 'Divide by 2'),
      { toolCalls: [calc('12*12')] },
      { content: '144' },
      {
        content: JSON.stringify({
          need_replan: true,
          reason: 'both operations fit in one step',
          new_steps: ['Compute (144 + 10) / 2'],
        }),
      },
      { toolCalls: [calc('(144 + 10) / 2')] },
      { content: '77' },
      keep,
      { content: '77' },
    ]);
    model.assertConsumed();
    expect(result.answer).toBe('77');
    expect(result.state.plan!.steps.map((step) => [step.description, step.status])).toEqual([
      ['Compute 12*12', 'completed'],
      ['Compute (144 + 10) / 2', 'completed'],
    ]);
    expect(result.state.replan).toMatchObject({ count: 1 });
    const decision = events.find((event) => event.type === 'replan_decision' && event.data.applied === true)!;
    expect(decision.data).toMatchObject({
      afterStep: 1,
      reason: 'both operations fit in one step',
      newSteps: ['Compute (144 + 10) / 2'],
    });
  });

  it('a step that exhausts its tool rounds is recorded as partial and the run goes on', async () => {
    const { model, result, events } = await run(
      [
        planOf('Find the number', 'Double it'),
        { toolCalls: [{ name: 'lookup', arguments: '{"key":"answer"}' }] },
        { toolCalls: [{ name: 'lookup', arguments: '{"key":"pi"}' }] },
        { toolCalls: [{ name: 'lookup', arguments: '{"key":"answer"}' }] },
        keep,
        { toolCalls: [calc('42 * 2')] },
        { content: '84' },
        keep,
        { content: '84 (the first step was only partly done)' },
      ],
      { think: { maxStepToolRounds: 3 } },
      'Find the number and double it',
    );
    model.assertConsumed();
    expect(model.requests[3]!.tools).toBeUndefined();
    const first = result.state.plan!.results[0]!;
    expect(first).toMatchObject({ step: 1, outcome: 'partial' });
    expect(first.output).toMatch(/did not finish within 3 rounds\. Latest tool results: lookup: 42; lookup: 3\.14159/);
    expect(result).toMatchObject({
      status: 'completed',
      partial: true,
      answer: '84 (the first step was only partly done)',
    });
    expect(events.some((event) => event.type === 'step_last_round')).toBe(true);
  });

  it('falls back to a one-step plan when the planner fails twice, and still finishes', async () => {
    const { model, result, events } = await run([
      { content: 'no' },
      { content: 'still no' },
      { toolCalls: [calc('(12*12 + 10) / 2')] },
      { content: '77' },
      keep,
      { content: '77' },
    ]);
    model.assertConsumed();
    expect(result.state.plan).toMatchObject({
      source: 'fallback',
      steps: [{ description: 'Compute 12*12, then add 10, then divide by 2', status: 'completed' }],
    });
    expect(events.map((event) => event.type)).toContain('plan_fallback');
    expect(result.answer).toBe('77');
  });

  it('the iteration cap mid-plan gives a partial answer that lists the remaining steps', async () => {
    const { result, model } = await run(
      [
        planOf('Compute 12*12', 'Add 10'),
        { toolCalls: [calc('12*12')] },
        { content: '144' },
        keep,
        { content: 'Only 144 so far.' },
      ],
      { maxIterations: 2 },
    );
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'stopped', partial: true, answer: 'Only 144 so far.' });
    expect(model.requests[4]!.messages[1]!.content).toContain('Remaining work:\nAdd 10');
  });
});
