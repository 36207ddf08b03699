import { describe, expect, it } from 'vitest';
import {
  custom,
  jsonSchemaValid,
  jsonSubset,
  maxTime,
  maxTokens,
  stopReason,
  toolCalled,
  toolNotCalled,
  type Grader,
} from '../../src/eval/graders/index.js';
import { subject } from './subjects.js';

const grade = (grader: Grader, fields: Parameters<typeof subject>[0] = {}) =>
  Promise.resolve(grader.grade(subject(fields), {}));

describe('JSON graders', () => {
  const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };

  it('json-schema passes a valid output and names the first problem of an invalid one', async () => {
    expect((await grade(jsonSchemaValid(schema), { output: { answer: 391 } })).score).toBe(1);
    const invalid = await grade(jsonSchemaValid(schema), { output: { answer: 'many' } });
    expect(invalid.score).toBe(0);
    expect(invalid.reason).toMatch(/answer: /);
    expect((await grade(jsonSchemaValid(schema), {})).reason).toBe('the answer is not JSON');
  });

  it('json-subset accepts extra fields and names the first mismatch', async () => {
    expect(
      (await grade(jsonSubset({ a: 1, b: { c: [1, 2] } }), { output: { a: 1, b: { c: [1, 2], d: true }, e: 'x' } }))
        .score,
    ).toBe(1);
    expect((await grade(jsonSubset({ b: { c: [1, 3] } }), { output: { b: { c: [1, 2] } } })).reason).toMatch(
      /\$\.b\.c\[1\] is 2, expected 3/,
    );
    expect((await grade(jsonSubset({ a: 1 }), { output: {} })).reason).toMatch(/\$\.a is missing/);
  });
});

describe('run graders', () => {
  const calls = [{ name: 'calculator', arguments: { expression: '17 * 23' } }];

  it('tool-called checks the name, the arguments and the count', async () => {
    expect((await grade(toolCalled('calculator'), { toolCalls: calls })).score).toBe(1);
    expect(
      (await grade(toolCalled('calculator', { arguments: { expression: '17 * 23' } }), { toolCalls: calls })).score,
    ).toBe(1);
    expect(
      (await grade(toolCalled('calculator', { arguments: { expression: '1 + 1' } }), { toolCalls: calls })).reason,
    ).toMatch(/called calculator but not with/);
    expect((await grade(toolCalled('calculator', { times: 2 }), { toolCalls: calls })).score).toBe(0);
    expect((await grade(toolCalled('web_search'), { toolCalls: calls })).reason).toMatch(/\(called: calculator\)/);
    expect((await grade(toolNotCalled(), { toolCalls: calls })).score).toBe(0);
    expect((await grade(toolNotCalled('web_search'), { toolCalls: calls })).score).toBe(1);
  });

  it('stop-reason, max-tokens and max-time', async () => {
    expect((await grade(stopReason('completed'))).score).toBe(1);
    expect((await grade(stopReason(['budget_tokens', 'loop_detected']))).reason).toBe(
      'stopped with completed, expected budget_tokens or loop_detected',
    );
    expect((await grade(maxTokens(120))).score).toBe(1);
    expect((await grade(maxTokens(119))).reason).toBe('120 tokens, over 119');
    expect((await grade(maxTime(50))).score).toBe(1);
    expect((await grade(maxTime(49))).score).toBe(0);
  });
});

describe('custom graders', () => {
  it('take a boolean, a number (clamped) or a grade, and turn a throw into a zero', async () => {
    expect(await grade(custom('short', ({ answer }) => answer.length < 20))).toEqual({
      score: 1,
      reason: 'short passed',
    });
    expect((await grade(custom('half', () => 0.5))).score).toBe(0.5);
    expect((await grade(custom('big', () => 7))).score).toBe(1);
    expect(await grade(custom('own', async () => ({ score: 0.25, reason: 'a quarter' })))).toEqual({
      score: 0.25,
      reason: 'a quarter',
    });
    expect(
      await grade(
        custom('broken', () => {
          throw new Error('no way');
        }),
      ),
    ).toEqual({ score: 0, reason: 'broken threw: no way' });
  });
});
