// evaluate's judge hook: rules first, then a sync or async judge of the final answer (answerJudge() itself:
// answer-judge.test.ts).
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../../pipelines/index.js';
import { runPipeline } from '../../../src/engine/runner.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import type { AnswerJudgeHook } from '../../../stages/loop/evaluate.js';
import { testTools } from '../../support/stage-tools.js';

const task = 'What is 17 * 23 + 4? Use the calculator.';
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

function run(judge: AnswerJudgeHook, replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(replies);
  return runPipeline(reactPipeline({ evaluate: { judge } }), { task }, { deps: { model, tools: testTools() } });
}

describe('evaluate({ judge })', () => {
  it('a sync judge that rejects: the model is told why and answers again; rejected again, the run stops with judge_rejected, answer partial', async () => {
    const judge: AnswerJudgeHook = (state) => ({
      accept: /395/.test(state.answer ?? ''),
      reason: 'the answer must be exact',
    });
    const model = new ScriptedModel([
      { content: 'About 400.', usage },
      { content: 'Roughly 400.', usage },
    ]);
    const result = await runPipeline(
      reactPipeline({ evaluate: { judge } }),
      { task },
      { deps: { model, tools: testTools() } },
    );
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'judge_rejected', stage: 'evaluate' },
      answer: 'Roughly 400.',
      partial: true,
    });
    expect(result.state.answerJudge?.decisions).toEqual([
      { accept: false, reason: 'the answer must be exact' },
      { accept: false, reason: 'the answer must be exact' },
    ]);
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(
      /not accepted: the answer must be exact\. Answer again/,
    );
  });

  it('a rejected answer that the model then corrects completes the run', async () => {
    const judge: AnswerJudgeHook = (state) => ({
      accept: /395/.test(state.answer ?? ''),
      reason: 'compute it with the calculator',
    });
    const model = new ScriptedModel([
      { content: 'About 400.', usage },
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' }], usage },
      { content: '395', usage },
    ]);
    const result = await runPipeline(
      reactPipeline({ evaluate: { judge } }),
      { task },
      { deps: { model, tools: testTools() } },
    );
    expect(result).toMatchObject({
      status: 'completed',
      answer: '395',
      stopReason: { kind: 'completed', stage: 'evaluate' },
    });
  });

  it('an async judge that accepts lets the run complete; it is not asked while tools are still being called', async () => {
    const seen: string[] = [];
    const judge: AnswerJudgeHook = async (state) => {
      seen.push(state.answer ?? '');
      return { accept: true, reason: 'fine' };
    };
    const result = await run(judge, [
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' }], usage },
      { content: '395', usage },
    ]);
    expect(result).toMatchObject({ status: 'completed', answer: '395' });
    expect(seen).toEqual(['395']);
  });

  it('rules come first: a turn that evaluate already stops never reaches the judge', async () => {
    const failing = { name: 'calculator', arguments: '{"expresion":"1"}' };
    let asked = 0;
    const replies: ConstructorParameters<typeof ScriptedModel>[0] = Array.from({ length: 4 }, (_, turn) => ({
      toolCalls: [{ ...failing, arguments: `{"expresion":"${turn}"}` }],
      usage,
    }));
    const model = new ScriptedModel([...replies, { content: 'Partial.', usage }]);
    const result = await runPipeline(
      reactPipeline({ evaluate: { judge: () => ((asked += 1), { accept: true, reason: '' }) } }),
      { task },
      { deps: { model, tools: testTools() } },
    );
    expect(result.stopReason.kind).toBe('evaluate_stop');
    expect(asked).toBe(0);
  });
});
