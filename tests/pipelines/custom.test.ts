import { describe, expect, it } from 'vitest';
import { context, summarize, think } from '../../stages/index.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { testTools } from '../support/stage-tools.js';

describe('a custom pipeline from the same stages, with no new code', () => {
  const responder = definePipeline({
    name: 'responder',
    setup: [context({ instructions: 'Answer in one sentence.' })],
    iteration: [think({ useTools: false })],
    finalize: [summarize()],
    maxIterations: 2,
  });

  it('a tool-less responder answers in one call', async () => {
    const model = new ScriptedModel([{ content: 'Paris is the capital of France.' }]);
    const result = await runPipeline(
      responder,
      { task: 'What is the capital of France?' },
      { deps: { model, tools: testTools() } },
    );
    model.assertConsumed();
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'Paris is the capital of France.',
      partial: false,
      iterations: 1,
    });
    expect(model.requests[0]!.tools).toBeUndefined();
    expect(model.requests[0]!.messages[0]!.content.startsWith('Answer in one sentence.')).toBe(true);
  });

  it('still ends with a partial answer when the model never answers', async () => {
    const model = new ScriptedModel([{ content: '' }, { content: '' }, { content: 'I do not know yet.' }]);
    const result = await runPipeline(responder, { task: 'Anything?' }, { deps: { model } });
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'max_iterations' },
      partial: true,
      answer: 'I do not know yet.',
    });
  });
});
