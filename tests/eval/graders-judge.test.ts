// The model-judge grader over a real loopback model server: score and reason from the judge, cached per input.
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/eval/graders/index.js';
import { modelJudge } from '../../src/model/judge.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { subject } from './subjects.js';

const loopback = useLoopbackServer();

describe('judge grader', () => {
  it('scores with the judge model, passes at the threshold, and asks once for the same answer', async () => {
    loopback.server.replyWith({ content: '{"score": 0.8, "reason": "correct and short"}' });
    const grader = judge({ rubric: 'Is the answer correct?', model: loopback.model() });
    const first = await grader.grade(subject({ case: { id: 'a', task: 'What is 17 * 23?', expected: 391 } }), {});
    expect(first).toEqual({ score: 0.8, reason: 'judge: correct and short' });
    expect(grader.threshold).toBe(0.7);
    const body = JSON.stringify(loopback.server.lastBody?.messages);
    expect(body).toContain('Is the answer correct?');
    expect(body).toContain('REFERENCE\\n391');
    const again = await grader.grade(subject({ case: { id: 'a', task: 'What is 17 * 23?', expected: 391 } }), {});
    expect(again.reason).toBe('judge: correct and short (cached)');
    expect(loopback.server.requests).toHaveLength(1);
  });

  it('scores 0 with the problem when the judge cannot answer', async () => {
    loopback.server.fail(500, { message: 'down' });
    const grader = judge({
      rubric: 'Is it right?',
      judge: modelJudge({ model: loopback.model(), rubric: 'Is it right?' }),
    });
    const grade = await grader.grade(subject(), {});
    expect(grade.score).toBe(0);
    expect(grade.reason).toMatch(/^no verdict: the judge failed/);
  });
});
