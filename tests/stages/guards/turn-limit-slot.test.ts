// The turn limit end to end: the budget, once spent, makes the next reasoning turn tool-less with its limit; think
// sends that turn without tools, clears the limit, and its answer stops the run under the limit's kind.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../../pipelines/index.js';
import { applyGuards } from '../../../pipelines/guards.js';
import { runPipeline } from '../../../src/engine/runner.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { testTools } from '../../support/stage-tools.js';

const spent = { inputTokens: 200, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

describe('the turn limit', () => {
  it('a spent token budget: one tool-less turn, then stopped as budget_tokens with the answer, the limit cleared', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1 + 1"}' }], usage: spent },
      { content: 'Forced answer: 2.', usage: spent },
    ]);
    const pipeline = applyGuards(reactPipeline(), { maxTokens: 200 }, { modelName: 'test-model' });
    const result = await runPipeline(pipeline, { task: 'What is 1 + 1?' }, { deps: { model, tools: testTools() } });
    expect(model.requests[0]!.tools?.length).toBeGreaterThan(0);
    expect(model.requests[1]!.tools).toBeUndefined();
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'budget_tokens' },
      answer: 'Forced answer: 2.',
      partial: true,
    });
    expect(result.stopReason.message).toMatch(/final tool-less turn/);
    expect(result.state.nextTurn.limit).toBeUndefined();
  });
});
