// Grades one run with a case's graders: the mean score, and a pass when every grader passed.
import { messageOf } from '../common/error-message.js';
import { clampScore, passes, type Grader, type GradeRecord, type GradeSubject } from './graders/types.js';

export async function gradeRun(
  subject: GradeSubject,
  graders: readonly Grader[],
  signal?: AbortSignal,
): Promise<{ pass: boolean; score: number; grades: GradeRecord[] }> {
  const grades = await Promise.all(
    graders.map(async (grader): Promise<GradeRecord> => {
      try {
        const grade = await grader.grade(subject, signal ? { signal } : {});
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
    }),
  );
  const score = grades.length === 0 ? 0 : grades.reduce((total, grade) => total + grade.score, 0) / grades.length;
  return { pass: grades.length > 0 && grades.every((grade) => grade.pass), score, grades };
}
