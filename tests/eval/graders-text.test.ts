import { describe, expect, it } from 'vitest';
import { contains, exact, normalized, numberWithin, numbersIn, regex } from '../../src/eval/graders/index.js';
import { subject } from './subjects.js';

type Graded = { score: number; reason: string };
const grade = (grader: { grade: (...args: never[]) => unknown }, fields: Parameters<typeof subject>[0]) =>
  (grader.grade as (s: ReturnType<typeof subject>, c: object) => Graded & PromiseLike<Graded>)(subject(fields), {});

describe('text graders', () => {
  it('exact passes only on the same text', () => {
    expect(grade(exact('Paris'), { answer: ' Paris\n' }).score).toBe(1);
    const failed = grade(exact('Paris'), { answer: 'paris' });
    expect(failed.score).toBe(0);
    expect(failed.reason).toMatch(/expected exactly Paris, got paris/);
  });

  it('normalized ignores case, accents, punctuation and spacing', () => {
    expect(grade(normalized('Zürich'), { answer: '  zurich. ' }).score).toBe(1);
    expect(grade(normalized('New York'), { answer: 'new-york!' }).score).toBe(1);
    expect(grade(normalized('Paris'), { answer: 'Lyon' }).score).toBe(0);
  });

  it('regex matches the answer (in a worker, so the grade is a promise)', async () => {
    expect((await grade(regex('^\\d+ \\* \\d+ = 391$'), {})).score).toBe(1);
    expect((await grade(regex('bonjour', { flags: 'i' }), { answer: 'BONJOUR' })).score).toBe(1);
    expect((await grade(regex(/^42$/), {})).reason).toMatch(/does not match/);
    // A global expression matches each answer from its start, as a fresh one would.
    const global = regex(/391/g);
    expect([(await grade(global, {})).score, (await grade(global, {})).score]).toEqual([1, 1]);
  });

  it('regex stops a match that backtracks past its time limit and fails the grade; the next match runs', async () => {
    const slow = await grade(regex('^(a+)+$', { timeLimitMs: 200 }), { answer: `${'a'.repeat(40)}!` });
    expect(slow).toEqual({
      score: 0,
      reason:
        '/^(a+)+$/ took over 200 ms on the answer and was stopped (catastrophic backtracking): rewrite it without nested repetition like (a+)+',
    });
    expect((await grade(regex('^(a+)+$'), { answer: 'aaaa' })).score).toBe(1);
  });

  it('an invalid pattern is a usage error saying why', () => {
    expect(() => regex('(a')).toThrow('invalid regular expression /(a/ (Unterminated group): fix the pattern');
  });
});

describe('contains (the grader of a case with only expected)', () => {
  it('finds a number among the sentence numbers, compared as numbers', () => {
    expect(grade(contains(391), {}).score).toBe(1);
    expect(grade(contains('391'), {}).score).toBe(1);
    expect(grade(contains(391), { answer: 'The answer is 391.0' }).score).toBe(1);
    expect(grade(contains(1024), { answer: 'It is 1,024 exactly' }).score).toBe(1);
    // 3910 contains the digits 391 but is another number.
    const wrong = grade(contains(391), { answer: '17 * 230 = 3910' });
    expect(wrong.score).toBe(0);
    expect(wrong.reason).toMatch(/has no 391 \(numbers in it: 17, 230, 3910\)/);
  });

  it('finds text as whole words of the normalised answer', () => {
    expect(grade(contains('paris'), { answer: 'The capital is Paris.' }).score).toBe(1);
    expect(grade(contains('paris'), { answer: 'Parisian food' }).score).toBe(0);
  });

  it('matches an object as a subset of the structured output', () => {
    expect(grade(contains({ total: 3 }), { output: { total: 3, unit: 'kg' } }).score).toBe(1);
    expect(grade(contains({ total: 3 }), { output: { total: 4 } }).reason).toMatch(/\$\.total is 4, expected 3/);
  });
});

describe('number within a tolerance', () => {
  it('reads every number of a sentence', () => {
    expect(numbersIn('1,024 items, -3.5 and 2e3 and .5')).toEqual([1024, -3.5, 2000, 0.5]);
  });

  it('takes the last number of the answer and compares it with a tolerance', () => {
    expect(grade(numberWithin(391), {}).score).toBe(1);
    expect(grade(numberWithin(3.14, { tolerance: 0.01 }), { answer: 'pi is about 3.1416' }).score).toBe(1);
    expect(grade(numberWithin(3.14, { tolerance: 0.001 }), { answer: 'pi is about 3.1416' }).reason).toMatch(
      /3.1416 is not 3.14 ± 0.001/,
    );
    expect(grade(numberWithin(100, { tolerance: 0.05, relative: true }), { answer: '104' }).score).toBe(1);
    expect(grade(numberWithin(100, { tolerance: 0.05, relative: true }), { answer: '106' }).score).toBe(0);
    expect(grade(numberWithin(1), { answer: 'no idea' }).reason).toMatch(/has no number/);
  });
});
