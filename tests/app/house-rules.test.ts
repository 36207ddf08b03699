// Three house rules, checked over the repository itself: no TypeScript file over 300 lines, every stage file
// stages/DIR/X.ts (barrels aside) has its own test file tests/stages/DIR/X*.test.ts, and few error classes.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const maxLines = 300;
/** Folders that are not ours to keep short: installed packages, build output, version control. */
const notOurs = new Set(['node_modules', 'dist', '.git']);

function typescriptFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) return notOurs.has(entry.name) ? [] : typescriptFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Lines as `wc -l` counts them: newline characters. */
const lineCount = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;

/**
 * Stage files without a test of their own. A test X.test.ts or X-more.test.ts is the test of the stage file with the
 * longest such name X in its folder: plan-ask-repairs.test.ts is plan-ask.ts's, not plan.ts's.
 */
function stageFilesWithoutTests(stageFiles: readonly string[], testsIn: (folder: string) => string[]): string[] {
  const tested = new Set<string>();
  for (const folder of new Set(stageFiles.map((file) => dirname(file)))) {
    const names = stageFiles.filter((file) => dirname(file) === folder).map((file) => basename(file, '.ts'));
    for (const test of testsIn(`tests/${folder}`).filter((file) => file.endsWith('.test.ts'))) {
      const base = test.slice(0, -'.test.ts'.length);
      const owner = names
        .filter((name) => base === name || base.startsWith(`${name}-`))
        .sort((left, right) => right.length - left.length)[0];
      if (owner !== undefined) tested.add(`${folder}/${owner}.ts`);
    }
  }
  return stageFiles.filter((file) => !tested.has(file));
}

/** Classes that extend StageloopError, directly or through another such class, in `sources` (file -> text). */
function stageloopErrorClasses(sources: readonly string[]): string[] {
  const parents = new Map<string, string>();
  for (const source of sources)
    for (const [, name, parent] of source.matchAll(/\bclass (\w+) extends (\w+)/g)) parents.set(name!, parent!);
  const descends = (name: string, seen: number): boolean =>
    name === 'StageloopError' || (seen < parents.size && parents.has(name) && descends(parents.get(name)!, seen + 1));
  return [...parents.keys()].filter((name) => name !== 'StageloopError' && descends(name, 0)).sort();
}
/** A subclass is kept only where it carries fields a caller reads or is caught by class: the rest is a code. */
const maxErrorClasses = 12;

const listFolder = (folder: string) => (existsSync(join(root, folder)) ? readdirSync(join(root, folder)) : []);

describe('the house rules', () => {
  it(`no TypeScript file of ours is over ${maxLines} lines`, () => {
    const files = typescriptFiles('');
    expect(files.length).toBeGreaterThan(100);
    expect(
      files.filter((file) => lineCount(file) > maxLines).map((file) => `${file}: ${lineCount(file)} lines`),
    ).toEqual([]);
  });

  it('every stage file has its test file, named after it, in the mirrored folder under tests/stages', () => {
    const stageFiles = typescriptFiles('stages').filter((file) => basename(file) !== 'index.ts');
    expect(stageFiles.length).toBeGreaterThan(40);
    expect(stageFilesWithoutTests(stageFiles, listFolder)).toEqual([]);
  });

  it("the check finds a stage file without a test, and does not count another stage file's test for it", () => {
    const stageFiles = [
      'stages/plan/plan.ts',
      'stages/plan/plan-steps.ts',
      'stages/plan/plan-ask.ts',
      'stages/loop/evaluate.ts',
    ];
    const tests: Record<string, string[]> = {
      'tests/stages/plan': ['plan-steps.test.ts', 'plan-ask-repairs.test.ts'],
      'tests/stages/loop': ['evaluate-judge.test.ts'],
    };
    expect(stageFilesWithoutTests(stageFiles, (folder) => tests[folder] ?? [])).toEqual(['stages/plan/plan.ts']);
  });

  it(`at most ${maxErrorClasses} subclasses of StageloopError, and no UsageError or ConfigError left`, () => {
    const files = ['app', 'src', 'stages', 'pipelines'].flatMap((folder) => typescriptFiles(folder));
    const sourceOf = (file: string) => readFileSync(join(root, file), 'utf8');
    const classes = stageloopErrorClasses(files.map(sourceOf));
    expect(classes).toContain('ModelError');
    expect(classes.length, classes.join(', ')).toBeLessThanOrEqual(maxErrorClasses);
    expect(files.filter((file) => /\bnew (UsageError|ConfigError)\(/.test(sourceOf(file)))).toEqual([]);
  });

  it('the error-class count follows a class through another subclass, and leaves other errors out', () => {
    const sources = [
      'class A extends StageloopError {}\nclass B extends A {}',
      'class C extends Error {}\nclass D extends C {}',
    ];
    expect(stageloopErrorClasses(sources)).toEqual(['A', 'B']);
  });
});
