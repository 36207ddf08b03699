// Text graders: exact, normalised text, regex, and "the answer contains the expected value" (numbers as numbers).
import type { JsonValue } from '../../common/json.js';
import { numbersIn, sameNumber } from './number.js';
import { jsonSubsetScore } from './json.js';
import { preview, type Grader } from './types.js';
import { regexMatcher } from './regex-matcher.js';
import { StageloopError } from '../../common/stageloop-error.js';

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

/** How long one regex match may take by default: an answer matches in microseconds unless the pattern backtracks. */
export const regexTimeLimitMs = 2_000;

/**
 * The answer matches the regular expression. The match runs in a worker thread and fails the grade when it takes
 * longer than `timeLimitMs` (a pattern that backtracks catastrophically on this answer), so no pattern hangs the eval.
 */
export function regex(
  pattern: string | RegExp,
  options: { flags?: string; threshold?: number; timeLimitMs?: number } = {},
): Grader {
  const expression = typeof pattern === 'string' ? compiled(pattern, options.flags) : pattern;
  const limitMs = options.timeLimitMs ?? regexTimeLimitMs;
  return {
    name: 'regex',
    ...(options.threshold !== undefined && { threshold: options.threshold }),
    grade: async ({ answer }, { signal }) => {
      const outcome = await regexMatcher.match(expression, answer, limitMs, signal);
      if (outcome === 'timed_out')
        return {
          score: 0,
          reason: `${expression} took over ${limitMs} ms on the answer and was stopped (catastrophic backtracking): rewrite it without nested repetition like (a+)+`,
        };
      return outcome === 'matched'
        ? { score: 1, reason: `the answer matches ${expression}` }
        : { score: 0, reason: `the answer does not match ${expression}: ${preview(answer)}` };
    },
  };
}

/** A pattern as a RegExp; one that is not valid is a usage error saying why. */
function compiled(pattern: string, flags: string | undefined): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    const why = (error as Error).message.split(': ').at(-1);
    throw new StageloopError(
      'usage',
      `invalid regular expression /${pattern}/${flags ?? ''} (${why}): fix the pattern (JavaScript syntax, backslashes doubled in JSON)`,
    );
  }
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
