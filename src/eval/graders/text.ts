// Text graders: exact, normalised text, regex, and "the answer contains the expected value" (numbers as numbers).
import type { JsonValue } from '../../common/json.js';
import { numbersIn, sameNumber } from './number.js';
import { jsonSubsetScore } from './json.js';
import { preview, type Grader } from './types.js';

/** Lower case, accents and punctuation dropped, white space collapsed: "Paris." and " paris" are the same. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s.-]/gu, ' ')
    .replace(/(?<!\d)[.-]|[.-](?!\d)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The answer is exactly `value` (leading and trailing white space aside). */
export function exact(value: string, options: { threshold?: number } = {}): Grader {
  return {
    name: 'exact',
    ...options,
    grade: ({ answer }) =>
      answer.trim() === value.trim()
        ? { score: 1, reason: `the answer is exactly ${preview(value)}` }
        : { score: 0, reason: `expected exactly ${preview(value)}, got ${preview(answer)}` },
  };
}

/** The answer equals `value` after normalizeText (case, accents, punctuation and spacing ignored). */
export function normalized(value: string, options: { threshold?: number } = {}): Grader {
  const wanted = normalizeText(value);
  return {
    name: 'normalized',
    ...options,
    grade: ({ answer }) =>
      normalizeText(answer) === wanted
        ? { score: 1, reason: `the answer matches ${preview(value)} (normalised)` }
        : { score: 0, reason: `expected ${preview(value)} (normalised), got ${preview(answer)}` },
  };
}

/** The answer matches the regular expression. */
export function regex(pattern: string | RegExp, options: { flags?: string; threshold?: number } = {}): Grader {
  const expression = typeof pattern === 'string' ? new RegExp(pattern, options.flags) : pattern;
  return {
    name: 'regex',
    ...(options.threshold !== undefined && { threshold: options.threshold }),
    grade: ({ answer }) =>
      expression.test(answer)
        ? { score: 1, reason: `the answer matches ${expression}` }
        : { score: 0, reason: `the answer does not match ${expression}: ${preview(answer)}` },
  };
}

/**
 * The default grader of a case with only `expected`: answers are sentences ("17 * 23 = 391"), so a number is found
 * among the answer's numbers (compared as numbers), text inside the normalised answer, and an object or array as a
 * subset of the structured output.
 */
export function contains(expected: JsonValue, options: { threshold?: number } = {}): Grader {
  return {
    name: 'contains',
    ...options,
    grade: (subject) => {
      const wanted =
        typeof expected === 'string' && /^\s*-?[\d,]*\.?\d+(e[+-]?\d+)?\s*$/i.test(expected)
          ? Number(expected.replace(/,/g, ''))
          : expected;
      if (typeof wanted === 'number') {
        const found = numbersIn(subject.answer);
        return found.some((number) => sameNumber(number, wanted))
          ? { score: 1, reason: `the answer contains ${wanted}` }
          : {
              score: 0,
              reason: `the answer has no ${wanted}${found.length ? ` (numbers in it: ${found.slice(0, 5).join(', ')})` : ''}: ${preview(subject.answer)}`,
            };
      }
      if (typeof wanted === 'string' || typeof wanted === 'boolean' || wanted === null) {
        const text = normalizeText(String(wanted));
        const inside = ` ${normalizeText(subject.answer)} `.includes(` ${text} `);
        return inside
          ? { score: 1, reason: `the answer contains ${preview(String(wanted))}` }
          : { score: 0, reason: `the answer does not contain ${preview(String(wanted))}: ${preview(subject.answer)}` };
      }
      return jsonSubsetScore(wanted, subject.output, 'the output');
    },
  };
}
