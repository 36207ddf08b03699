// The docs suite fails on a broken doc: one planted break per kind of block, each reported at its line.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blocksOf, dataProblems, languageProblems, shellProblems, typeScriptProblems } from './check-docs.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const broken = blocksOf([fileURLToPath(new URL('./fixtures/planted-breaks.md', import.meta.url))], root);
const sound = blocksOf([fileURLToPath(new URL('./fixtures/sound.md', import.meta.url))], root);
const file = 'tests/docs/fixtures/planted-breaks.md';

describe('the docs suite on planted breaks', () => {
  it('reports each TypeScript error at its line in the doc', () => {
    const problems = typeScriptProblems(broken, root);
    expect(problems.map((problem) => problem.where)).toEqual([`${file}:5`, `${file}:6`]);
    expect(problems[1]!.message).toContain("'answerText' does not exist");
  }, 180_000);

  it('reports a shell line that exits with an unpromised code, and one that does not print what it says', () => {
    const problems = shellProblems(broken, root);
    expect(problems.map((problem) => problem.where)).toEqual([`${file}:11`, `${file}:12`]);
    expect(problems[0]!.message).toMatch(/exited 2/);
    expect(problems[1]!.message).toContain('did not print 5');
  }, 120_000);

  it('reports invalid JSON and a block in a language the suite does not know', () => {
    expect(dataProblems(broken).map((problem) => problem.where)).toEqual([`${file}:16`]);
    expect(languageProblems(broken).map((problem) => problem.where)).toEqual([`${file}:19`]);
  });

  it('passes a doc whose blocks hold (RUN is filled with the newest run)', () => {
    expect(typeScriptProblems(sound, root)).toEqual([]);
    expect(shellProblems(sound, root)).toEqual([]);
  }, 180_000);
});
