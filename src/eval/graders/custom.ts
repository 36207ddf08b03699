// A grader from a function: return a score, a boolean, or { score, reason }; a throw is a zero with its message.
import { messageOf } from '../../common/error-message.js';
import { clampScore, type Grade, type GradeContext, type Grader, type GradeSubject } from './types.js';

export type GradeFunction = (
  subject: GradeSubject,
  context: GradeContext,
) => number | boolean | Grade | Promise<number | boolean | Grade>;

export function custom(name: string, grade: GradeFunction, options: { threshold?: number } = {}): Grader {
  return {
    name,
    ...options,
    async grade(subject, context) {
      try {
        const value = await grade(subject, context);
        if (typeof value === 'boolean')
          return { score: value ? 1 : 0, reason: value ? `${name} passed` : `${name} failed` };
        if (typeof value === 'number')
          return { score: clampScore(value), reason: `${name} scored ${clampScore(value)}` };
        return { score: clampScore(value.score), reason: value.reason };
      } catch (error) {
        return { score: 0, reason: `${name} threw: ${messageOf(error).split('\n')[0]}` };
      }
    },
  };
}
