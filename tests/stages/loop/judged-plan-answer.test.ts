// withJudgedPlanAnswer: in Plan-Execute-Replan the goal is met once every step is done and the composed answer passes
// evaluate's judge.
import { describe, expect, it } from 'vitest';
import type { AnswerJudgeHook } from '../../../stages/loop/evaluate.js';
import { fetchCall, graph, keep, runPlan } from '../../pipelines/plan-graph-fixtures.js';

describe('planExecuteReplanPipeline({ evaluate: { judge } })', () => {
  it('six-components "Reach for a model based judge only when the check genuinely needs judgement": the judge is called on the composed answer; a rejection composes it again with the reason, then stops judge_rejected', async () => {
    const seen: string[] = [];
    const judge: AnswerJudgeHook = (state) => {
      seen.push(state.answer ?? '');
      return { accept: false, reason: 'it does not name the value' };
    };
    const { result, model } = await runPlan(
      [
        graph({ id: 'a', description: 'Fetch a', dependsOn: [] }),
        { toolCalls: [fetchCall('a')] },
        { content: 'value of a' },
        keep,
        { content: 'Done.' },
        { content: 'Still done.' },
      ],
      { evaluate: { judge } },
    );
    expect(seen).toEqual(['Done.', 'Still done.']);
    expect(model.requests.at(-1)!.messages.at(-1)!.content).toContain(
      'An earlier answer was not accepted: it does not name the value.',
    );
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'judge_rejected', stage: 'replan' },
      answer: 'Still done.',
      partial: true,
    });
  });

  it('an accepted answer completes the run, with no second summary call', async () => {
    const judge: AnswerJudgeHook = (state) => ({ accept: /a/.test(state.answer ?? ''), reason: 'names a' });
    const { result } = await runPlan(
      [graph({ id: 'a', description: 'Fetch a', dependsOn: [] }), { content: 'A' }, keep, { content: 'It is a.' }],
      { evaluate: { judge } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'It is a.', partial: false });
    expect(result.state.answerJudge!.decisions).toEqual([{ accept: true, reason: 'names a' }]);
  });
});
