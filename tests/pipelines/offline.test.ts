import { afterAll, describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { OfflineModel, offlineNotice } from '../../src/model/offline-model.js';
import { calculatorTool } from '../../src/tools/calculator.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { testCalculator } from '../support/stage-tools.js';

const tools = new ToolRegistry([testCalculator]);

describe('the offline model drives both pipelines end to end', () => {
  it('ReAct: "What is 17 * 23 + 4?" → calculator → 395', async () => {
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline(),
      { task: 'What is 17 * 23 + 4?' },
      { deps: { model: new OfflineModel(), tools, onEvent: (event) => events.push(event) } },
    );
    expect(result).toMatchObject({ status: 'completed', partial: false, iterations: 2 });
    expect(result.answer).toMatch(/\b395\b/);
    expect(events.find((event) => event.type === 'tool_call')!.data).toMatchObject({
      name: 'calculator',
      arguments: '{"expression":"17 * 23 + 4"}',
    });
    expect(result.usage.estimated).toBe(true);
  });

  it('Plan-Execute-Replan: a 3-step plan, each step computed from the previous result, → 77', async () => {
    const events: RunEvent[] = [];
    const result = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 'Compute 12*12, then add 10, then divide by 2' },
      {
        deps: { model: new OfflineModel(), tools, onEvent: (event) => events.push(event) },
      },
    );
    expect(result.status).toBe('completed');
    expect(events.find((event) => event.type === 'plan_created')!.data.steps).toEqual([
      { id: 's1', description: 'Compute 12*12', dependsOn: [], status: 'pending' },
      { id: 's2', description: 'Add 10', dependsOn: ['s1'], status: 'pending' },
      { id: 's3', description: 'Divide by 2', dependsOn: ['s2'], status: 'pending' },
    ]);
    expect(events.filter((event) => event.type === 'tool_call').map((event) => event.data.arguments)).toEqual([
      '{"expression":"12*12"}',
      '{"expression":"144 + 10"}',
      '{"expression":"154 / 2"}',
    ]);
    expect(result.answer).toMatch(/The answer is 77\.$/);
    expect(result.state.plan!.steps.every((step) => step.status === 'completed')).toBe(true);
  });

  it('Plan-Execute-Replan: three independent products and a dependent sum run as a graph → 68', async () => {
    const events: RunEvent[] = [];
    const result = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 'Compute 2*3, 4*5 and 6*7, then add the three results' },
      {
        deps: { model: new OfflineModel(), tools, onEvent: (event) => events.push(event) },
      },
    );
    expect(result.status).toBe('completed');
    expect(result.state.plan!.steps.map((step) => [step.id, step.description, step.dependsOn])).toEqual([
      ['s1', 'Compute 2*3', []],
      ['s2', 'Compute 4*5', []],
      ['s3', 'Compute 6*7', []],
      ['s4', 'Add the three results', ['s1', 's2', 's3']],
    ]);
    // The three products are asked for in one iteration, each by its own step.
    const products = events.filter((event) => event.type === 'tool_call' && event.iteration === 1);
    expect(products.map((event) => [event.step, (event.data as { arguments: string }).arguments])).toEqual([
      ['s1', '{"expression":"2*3"}'],
      ['s2', '{"expression":"4*5"}'],
      ['s3', '{"expression":"6*7"}'],
    ]);
    expect(events.filter((event) => event.type === 'tool_call').at(-1)).toMatchObject({
      step: 's4',
      data: { arguments: '{"expression":"6 + 20 + 42"}' },
    });
    expect(result.answer).toMatch(/The answer is 68\.$/);
  });

  it('ReAct on a multi-part task chains one calculator call per part', async () => {
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Compute 12*12, then add 10, then divide by 2' },
      { deps: { model: new OfflineModel(), tools } },
    );
    expect(result).toMatchObject({
      status: 'completed',
      iterations: 4,
      answer: '12*12 = 144; 144 + 10 = 154; 154 / 2 = 77. The answer is 77.',
    });
  });

  it('numbers come from the tool, not from the model: a different calculator result changes the answer', async () => {
    const result = await runPipeline(
      reactPipeline(),
      { task: 'What is 2 + 2?' },
      { deps: { model: new OfflineModel(), tools } },
    );
    expect(result.answer).toBe('2 + 2 = 4');
  });

  it('says plainly what it is for anything else, and the run stops as cannot_answer instead of completing', async () => {
    for (const pipeline of [reactPipeline(), planExecuteReplanPipeline()]) {
      const result = await runPipeline(
        pipeline,
        { task: 'Write a poem about autumn' },
        { deps: { model: new OfflineModel(), tools } },
      );
      expect(result.answer, pipeline.name).toBe(offlineNotice);
      expect(result, pipeline.name).toMatchObject({
        status: 'stopped',
        partial: true,
        stopReason: {
          kind: 'cannot_answer',
          stage: 'think',
          message: 'the model stageloop-offline says it cannot answer this task',
        },
      });
    }
    expect(offlineNotice).toMatch(/offline model.*OPENAI_API_KEY.*OPENAI_BASE_URL.*OPENAI_MODEL/s);
  });

  it('stopped early, it writes a partial answer from the work done', async () => {
    const result = await runPipeline(
      reactPipeline({ maxIterations: 1 }),
      { task: 'What is 17 * 23 + 4?' },
      { deps: { model: new OfflineModel(), tools } },
    );
    expect(result).toMatchObject({ status: 'stopped', partial: true });
    expect(result.answer).toMatch(
      /partial answer from the offline model: reached the iteration cap of 1 \(max_iterations\)\. The latest result was: 395/,
    );
  });
});

describe('the offline model with the real mathjs calculator tool (the CLI acceptance path)', () => {
  const calculator = calculatorTool();
  const realTools = new ToolRegistry([calculator]);
  afterAll(() => calculator.close());

  it('ReAct prints 395 and Plan-Execute-Replan prints 77', async () => {
    const react = await runPipeline(
      reactPipeline(),
      { task: 'What is 17 * 23 + 4?' },
      { deps: { model: new OfflineModel(), tools: realTools } },
    );
    expect(react).toMatchObject({ status: 'completed', answer: '17 * 23 + 4 = 395' });
    const planned = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 'Compute 12*12, then add 10, then divide by 2' },
      { deps: { model: new OfflineModel(), tools: realTools } },
    );
    expect(planned.state.plan!.steps).toHaveLength(3);
    expect(planned).toMatchObject({
      status: 'completed',
      answer: '12*12 = 144; 144 + 10 = 154; 154 / 2 = 77. The answer is 77.',
    });
  });
});
