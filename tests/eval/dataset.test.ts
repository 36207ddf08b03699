import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataset, parseJsonl } from '../../src/eval/dataset.js';
import { gradersFor, JudgePool } from '../../src/eval/graders/index.js';

const problem = (text: string) => {
  try {
    parseJsonl(text, 'cases.jsonl');
  } catch (error) {
    return (error as Error & { code: string }).code + ': ' + (error as Error).message;
  }
  throw new Error('expected a problem');
};

describe('JSONL datasets', () => {
  it('reads one case a line, skipping blank and // lines, ids as text', () => {
    const dataset = parseJsonl(
      '// arithmetic\n{"id":1,"task":"What is 2 + 2?","expected":4,"tags":["easy"]}\n\n{"id":"b","task":"Hi","input":{"tone":"warm"},"graders":[{"type":"regex","pattern":"^H"}]}\n',
      'cases.jsonl',
    );
    expect(dataset.cases).toEqual([
      { id: '1', task: 'What is 2 + 2?', expected: 4, tags: ['easy'] },
      { id: 'b', task: 'Hi', input: { tone: 'warm' }, graders: [{ type: 'regex', pattern: '^H' }] },
    ]);
  });

  it('names the line and the problem in one line', () => {
    expect(problem('{"id":"a","task":"x"}\n{"id":"b",')).toMatch(
      /^usage: cases\.jsonl:2: not valid JSON \(.*\): write one case object per line$/,
    );
    expect(problem('{"id":"a"}')).toBe(
      'usage: cases.jsonl:1: task: Invalid input: expected string, received undefined',
    );
    expect(problem('\n{"id":"a","task":"x","expect":3}')).toMatch(
      /^usage: cases\.jsonl:2: unknown field "expect" \(a case has id, task/,
    );
    expect(problem('{"id":"a","task":"x","graders":[{"type":"fuzzy"}]}')).toMatch(
      /^usage: cases\.jsonl:1: graders\.0\.type: unknown grader type: use one of contains, exact/,
    );
    expect(problem('{"id":"a","task":"x","graders":[{"type":"regex"}]}')).toMatch(
      /^usage: cases\.jsonl:1: graders\.0\.pattern: /,
    );
    expect(problem('{"id":"a","task":"x"}\n{"id":"a","task":"y"}')).toBe(
      'usage: cases.jsonl:2: id "a" is used already by cases.jsonl:1: give each case its own id',
    );
    expect(problem('\n\n')).toMatch(/^usage: cases\.jsonl: no cases/);
    for (const message of [problem('{"id":"b",'), problem('{"id":"a","task":"x","graders":[{"type":"fuzzy"}]}')])
      expect(message).not.toContain('\n');
  });
});

describe('loading datasets', () => {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-dataset-'));

  it('loads a JSONL file, a module with cases and graders, and the built-in dataset', async () => {
    writeFileSync(join(folder, 'a.jsonl'), '{"id":"a","task":"What is 1 + 1?","expected":2}\n');
    expect((await loadDataset('a.jsonl', folder)).cases).toHaveLength(1);
    writeFileSync(
      join(folder, 'b.mjs'),
      'export const cases = [{ id: "m", task: "What is 3 * 3?", expected: 9 }];\nexport const graders = [{ name: "short", grade: (s) => ({ score: s.answer.length < 30 ? 1 : 0, reason: "length" }) }];\n',
    );
    const module = await loadDataset('b.mjs', folder);
    expect(module.cases[0]!.id).toBe('m');
    expect(module.graders?.[0]?.name).toBe('short');
    writeFileSync(join(folder, 'c.mjs'), 'export default async () => [{ id: "f", task: "What is 5 - 1?" }];\n');
    expect((await loadDataset('c.mjs', folder)).cases[0]!.task).toBe('What is 5 - 1?');
    const builtIn = await loadDataset('builtin:arithmetic');
    expect(builtIn.cases.length).toBeGreaterThanOrEqual(6);
    expect(builtIn.cases.some((evalCase) => evalCase.tags?.includes('multi-step'))).toBe(true);
  });

  it('says what is wrong with a missing file, a bad module or an unknown built-in', async () => {
    await expect(loadDataset('missing.jsonl', folder)).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/^missing\.jsonl: no such dataset file/),
    });
    writeFileSync(join(folder, 'd.mjs'), 'export const nothing = 1;\n');
    await expect(loadDataset('d.mjs', folder)).rejects.toThrow(/^d\.mjs: export the cases/);
    writeFileSync(join(folder, 'e.mjs'), 'export default [{ id: "x" }];\n');
    await expect(loadDataset('e.mjs', folder)).rejects.toThrow(/^e\.mjs: case 1: task: /);
    await expect(loadDataset('builtin:nope')).rejects.toThrow(
      'no built-in dataset "builtin:nope": choose builtin:arithmetic',
    );
  });
});

describe('the graders of a case', () => {
  const judges = new JudgePool(undefined);
  it('a case with only expected is graded by contains; one with nothing by completion; own graders first', () => {
    expect(gradersFor({ id: 'a', task: 't', expected: 4 }, [], judges).map((grader) => grader.name)).toEqual([
      'contains',
    ]);
    expect(gradersFor({ id: 'a', task: 't' }, [], judges).map((grader) => grader.name)).toEqual(['stop-reason']);
    expect(
      gradersFor(
        { id: 'a', task: 't', expected: 4, graders: [{ type: 'number' }, { type: 'tool-called', name: 'calculator' }] },
        [],
        judges,
      ).map((grader) => grader.name),
    ).toEqual(['number', 'tool-called']);
  });

  it('refuses a grader that lacks its value, and a judge without a judge model', () => {
    expect(() => gradersFor({ id: 'a', task: 't', graders: [{ type: 'exact' }] }, [], judges)).toThrow(
      'case "a": the exact grader needs a "value" (or the case\'s "expected")',
    );
    expect(() => gradersFor({ id: 'a', task: 't', graders: [{ type: 'judge', rubric: 'ok?' }] }, [], judges)).toThrow(
      /no judge model is set: pass --judge-model NAME/,
    );
  });
});
