// evaluate({ stepJudge }): a plan step's result judged for use; a useless one is a failed attempt the step makes again.
import { describe, expect, it } from 'vitest';
import type { StepJudgeHook } from '../../../stages/loop/evaluate.js';
import { fetchCall, graph, keep, runPlan } from '../../pipelines/plan-graph-fixtures.js';

describe('evaluate({ stepJudge })', () => {
  it.each([1, 3])(
    'six-components "is_useful(result, current_step)": a useless step result is a failed attempt the step retries (max parallel %i)',
    async (maxParallelSteps) => {
      const stepJudge: StepJudgeHook = (_state, result) => ({
        accept: result.output.includes('value of'),
        reason: 'the result must carry the fetched value',
      });
      const { result, events, model } = await runPlan(
        [
          graph({ id: 'a', description: 'Fetch a', dependsOn: [] }),
          { content: 'I could not be bothered.' },
          { toolCalls: [fetchCall('a')] },
          { content: 'value of a' },
          keep,
          { content: 'The value is a.' },
        ],
        { maxParallelSteps, evaluate: { stepJudge } },
      );
      expect(result).toMatchObject({ status: 'completed', answer: 'The value is a.' });
      expect(result.state.plan!.steps[0]).toMatchObject({ status: 'completed', attempts: 2, result: 'value of a' });
      expect(result.state.plan!.results.map((entry) => entry.output)).toEqual(['value of a']);
      expect(events.filter((event) => event.type === 'step_judged').map((event) => event.data)).toEqual([
        expect.objectContaining({ id: 'a', accept: false, attempt: 1 }),
        expect.objectContaining({ id: 'a', accept: true, attempt: 2 }),
      ]);
      expect(JSON.stringify(model.requests[2]!.messages)).toContain(
        'not of use: the result must carry the fetched value',
      );
    },
  );

  it('a step result still of no use once the retries are spent fails the step', async () => {
    const stepJudge: StepJudgeHook = () => ({ accept: false, reason: 'empty words' });
    const { result } = await runPlan(
      [
        graph({ id: 'a', description: 'Fetch a', dependsOn: [] }),
        { content: 'Nothing.' },
        { content: 'Nothing again.' },
        keep,
        { content: 'I could not fetch a.' },
      ],
      { maxParallelSteps: 1, evaluate: { stepJudge } },
    );
    expect(result.state.plan!.steps[0]).toMatchObject({
      status: 'failed',
      result: expect.stringMatching(/^Not of use \(empty words\)/),
    });
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'goal_not_met' } });
  });
});
