// The number grader: the answer's number within a tolerance of the expected one.
import { preview, type Grader } from './types.js';

/** Every number written in the text, thousands separators dropped: "1,024 items, -3.5 and 2e3" gives 1024, -3.5, 2000. */
export function numbersIn(text: string): number[] {
  const matches = text.match(/-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d+)?|-?\.\d+/gi) ?? [];
  return matches.map((match) => Number(match.replace(/,/g, ''))).filter(Number.isFinite);
}

/** Equal as numbers, with room for floating-point noise (0.1 + 0.2 is 0.3). */
export function sameNumber(left: number, right: number): boolean {
  return Math.abs(left - right) <= 1e-9 * Math.max(1, Math.abs(left), Math.abs(right));
}

export interface NumberOptions {
  /** Allowed distance (default 0: equal as numbers). */
  tolerance?: number;
  /** The tolerance is a fraction of the expected value (0.01 is 1%). */
  relative?: boolean;
  threshold?: number;
}

/** Passes when the answer's last number (the result of "a + b = c") is within the tolerance of `value`. */
export function numberWithin(value: number, options: NumberOptions = {}): Grader {
  const tolerance = options.tolerance ?? 0;
  const allowed = options.relative ? Math.abs(value) * tolerance : tolerance;
  const within = (number: number) => Math.abs(number - value) <= allowed || sameNumber(number, value);
  return {
    name: 'number',
    ...(options.threshold !== undefined && { threshold: options.threshold }),
    grade: ({ answer, output }) => {
      const numbers = typeof output === 'number' ? [output] : numbersIn(answer);
      const last = numbers.at(-1);
      if (last === undefined) return { score: 0, reason: `the answer has no number: ${preview(answer)}` };
      const band = allowed > 0 ? ` ± ${allowed}` : '';
      return within(last)
        ? { score: 1, reason: `${last} is within ${value}${band}` }
        : { score: 0, reason: `${last} is not ${value}${band}` };
    },
  };
}
