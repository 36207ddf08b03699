// answerJudge(): evaluate's judge hook over modelJudge(), against a real Chat Completions server on 127.0.0.1: the
// score against the minimum, the rubric sent, the judge's tokens counted in the run, a broken judge accepting.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../../pipelines/index.js';
import { runPipeline } from '../../../src/engine/runner.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { answerJudge } from '../../../stages/loop/answer-judge.js';
import type { AnswerJudgeHook } from '../../../stages/loop/evaluate.js';
import { makeState } from '../../support/helpers.js';
import { useLoopbackServer } from '../../support/loopback-model.js';
import { testTools } from '../../support/stage-tools.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const task = 'What is 17 * 23 + 4? Use the calculator.';
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

function run(judge: AnswerJudgeHook, replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(replies);
  return runPipeline(reactPipeline({ evaluate: { judge } }), { task }, { deps: { model, tools: testTools() } });
}

describe('answerJudge', () => {
  it('accepts a score at the minimum (0.5 by default) and rejects one below a higher minimum, naming the score', async () => {
    loopback.server
      .replyWith({ content: '{"score": 0.5, "reason": "half there"}' })
      .replyWith({ content: '{"score": 0.5, "reason": "half there"}' });
    const state = makeState({ task, answer: '395' });
    expect(await answerJudge({ model: loopback.model() })(state)).toEqual({
      accept: true,
      reason: 'score 0.5: half there',
    });
    expect(await answerJudge({ model: loopback.model(), minScore: 0.6 })(state)).toEqual({
      accept: false,
      reason: 'score 0.5: half there',
    });
  });

  it('sends its rubric, the task as the reference and the answer as the text', async () => {
    loopback.server.replyWith({ content: '{"score": 1, "reason": "exact"}' });
    await answerJudge({ model: loopback.model(), rubric: 'Is the number exactly right?' })(
      makeState({ task, answer: 'It is 395.' }),
    );
    const sent = JSON.stringify(loopback.server.requests[0]!.body.messages);
    expect(sent).toContain('Is the number exactly right?');
    expect(sent).toContain(task);
    expect(sent).toContain('It is 395.');
  });

  it('answerJudge: a model scores the answer against the task through modelJudge; its tokens count in the run', async () => {
    loopback.server.replyWith({
      content: '{"score": 0.1, "reason": "it only restates the question"}',
      usage: { input: 50, output: 7 },
    });
    const judge = answerJudge({ model: loopback.model() });
    const result = await runPipeline(
      reactPipeline({ evaluate: { judge, maxJudgeRetries: 0 } }),
      { task },
      {
        deps: { model: new ScriptedModel([{ content: 'You asked what 17 * 23 + 4 is.', usage }]), tools: testTools() },
      },
    );
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'judge_rejected' } });
    expect(result.state.answerJudge?.decisions[0]?.reason).toBe('score 0.1: it only restates the question');
    expect(result.usage.inputTokens).toBe(10 + 50);
    const sent = loopback.server.requests[0]!.body.messages.at(-1)!.content ?? '';
    expect(sent).toContain(task);
    expect(sent).toContain('You asked what 17 * 23 + 4 is.');
  });

  it('answerJudge: an unreachable judge accepts the answer and says it was not judged', async () => {
    loopback.server.fail(500, { message: 'judge down' });
    const result = await run(answerJudge({ model: loopback.model() }), [{ content: '395', usage }]);
    expect(result.status).toBe('completed');
    expect(result.state.answerJudge?.decisions[0]?.reason).toMatch(/^not judged: /);
  });
});
