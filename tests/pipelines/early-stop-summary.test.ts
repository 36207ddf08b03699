// Plan-Execute-Replan stopped mid-step: the graceful summary is written from the finished steps and the current
// step's tool results (nothing the run learnt is lost).
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { testTools } from '../support/stage-tools.js';

describe('plan-execute-replan early-stop summary', () => {
  it('includes the tool results of the step in progress when the run stopped', async () => {
    const plan = JSON.stringify({
      steps: [
        { description: 'Multiply 17 by 23', status: 'pending' },
        { description: 'Add 4', status: 'pending' },
      ],
    });
    const model = new ScriptedModel([
      { content: plan },
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 23"}' }] },
      { content: 'Partial: 17 * 23 = 391; 4 was not added yet.' },
    ]);
    const result = await runPipeline(
      planExecuteReplanPipeline({ maxIterations: 1, maxParallelSteps: 1 }),
      { task: 'What is 17 * 23 + 4?' },
      { deps: { model, tools: testTools() } },
    );
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'max_iterations' }, partial: true });
    const summaryRequest = model.requests.at(-1)!;
    const prompt = summaryRequest.messages.map((message) => message.content).join('\n');
    expect(prompt).toMatch(
      /Step 1 \(in progress when the run stopped\): Multiply 17 by 23\nTool results so far:\ncalculator\(\{"expression":"17 \* 23"\}\) returned: 391/,
    );
  });

  it('observe-plan-act "return graceful summary based on current observations": with steps side by side (default max parallel 3) the brief has every step in progress, with the tool results each had', async () => {
    const plan = JSON.stringify({
      steps: [
        { id: 'm', description: 'Multiply 17 by 23', dependsOn: [] },
        { id: 'd', description: 'Divide 100 by 4', dependsOn: [] },
        { id: 's', description: 'Add them', dependsOn: ['m', 'd'] },
      ],
    });
    const model = new ScriptedModel([
      { content: plan },
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 23"}' }] },
      { content: '' },
      { content: 'Partial: 17 * 23 = 391; the rest is not done.' },
    ]);
    const result = await runPipeline(
      planExecuteReplanPipeline({ maxIterations: 1 }),
      { task: 'What is 17 * 23 + 100 / 4?' },
      { deps: { model, tools: testTools() } },
    );
    model.assertConsumed();
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'max_iterations' }, partial: true });
    const prompt = model.requests
      .at(-1)!
      .messages.map((message) => message.content)
      .join('\n');
    expect(prompt).toMatch(
      /Step 1 \(in progress when the run stopped\): Multiply 17 by 23\nTool results so far:\ncalculator\(\{"expression":"17 \* 23"\}\) returned: 391/,
    );
    expect(prompt).toMatch(/Remaining work:\nMultiply 17 by 23\nDivide 100 by 4\nAdd them/);
  });
});
