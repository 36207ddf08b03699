// Grades one run with a case's graders: the mean score, and a pass when every grader passed. Each grader has a time
// limit: one that never settles is a failed grade naming it, not an eval that waits forever (or exits 13 when
// nothing else keeps Node's event loop alive).
import { messageOf } from '../common/error-message.js';
import { clampScore, passes, type Grade, type Grader, type GradeRecord, type GradeSubject } from './graders/types.js';

/** How long a grader may take by default (a judge asks a model; every other grader takes milliseconds). */
export const graderTimeLimitMs = 60_000;

export interface GradeOptions {
  signal?: AbortSignal;
  /** Per grader; default graderTimeLimitMs. */
  timeLimitMs?: number;
}

/** The grades, or undefined when the signal stopped the grading first. */
export async function gradeRun(
  subject: GradeSubject,
  graders: readonly Grader[],
  options: GradeOptions = {},
): Promise<{ pass: boolean; score: number; grades: GradeRecord[] } | undefined> {
  const { signal } = options;
  const limitMs = options.timeLimitMs ?? graderTimeLimitMs;
  const timers: NodeJS.Timeout[] = [];
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    if (signal?.aborted) resolve(undefined);
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  const gradeOne = async (grader: Grader): Promise<GradeRecord> => {
    const late = new Promise<Grade>((resolve) =>
      timers.push(
        setTimeout(
          () =>
            resolve({
              score: 0,
              reason: `grader "${grader.name}" did not finish within ${limitMs / 1000} s and was given up (a promise that never settles?)`,
            }),
          limitMs,
        ),
      ),
    );
    try {
      const grade = await Promise.race([Promise.resolve(grader.grade(subject, signal ? { signal } : {})), late]);
      const score = clampScore(grade.score);
      return {
        grader: grader.name,
        score,
        reason: grade.reason,
        pass: passes(grader, { score, reason: grade.reason }),
      };
    } catch (error) {
      return {
        grader: grader.name,
        score: 0,
        reason: `${grader.name} threw: ${messageOf(error).split('\n')[0]}`,
        pass: false,
      };
    }
  };
  try {
    const grades = await Promise.race([Promise.all(graders.map(gradeOne)), stopped]);
    if (grades === undefined) return undefined;
    const score = grades.length === 0 ? 0 : grades.reduce((total, grade) => total + grade.score, 0) / grades.length;
    return { pass: grades.length > 0 && grades.every((grade) => grade.pass), score, grades };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
