// The import plan: src/ < stages/ < pipelines/ < app/, each importing only its own layer and the ones below, no file
// importing itself through others, and app/assemble.ts the only file that builds a pipeline from a recipe.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const layers = ['src', 'stages', 'pipelines', 'app'] as const;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Every file's imports of ours (static, type-only, re-exports, `import()` and module augmentations), as paths from the root. */
function importPlan(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const plan = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts.preProcessFile(read(file), true, true).importedFiles.map((reference) => reference.fileName);
    const ours = imported.filter((name) => name.startsWith('.')).map((name) => relative(root, resolve(root, dirname(file), name.replace(/\.js$/, '.ts'))));
    plan.set(file, ours);
  }
  return plan;
}

const layerOf = (file: string) => layers.indexOf(file.split('/')[0] as (typeof layers)[number]);

function upwardImports(plan: ReadonlyMap<string, readonly string[]>): string[] {
  return [...plan].flatMap(([file, targets]) => targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} imports ${target}`));
}

/** Each circle once, as the path that closes it (Tarjan's strongly connected components). */
function importCircles(plan: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    lowest.set(file, order.get(file)!);
    stack.push(file);
    for (const target of plan.get(file) ?? []) {
      if (!plan.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(target)!));
      } else if (stack.includes(target)) lowest.set(file, Math.min(lowest.get(file)!, order.get(target)!));
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || plan.get(file)!.includes(file)) circles.push(component);
  };
  for (const file of plan.keys()) if (!order.has(file)) visit(file);
  return circles;
}

/** Calls of buildPipeline( outside comments, in any file but the assembler. */
function pipelineBuilders(files: readonly string[], read: (file: string) => string): string[] {
  const code = (text: string) => text.replace(/\/\*[^]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return files.filter((file) => file !== 'app/assemble.ts' && /buildPipeline\(/.test(code(read(file))));
}

const files = layers.flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('the import plan', () => {
  const plan = importPlan(files, read);

  it('reads the imports of every layer', () => {
    for (const layer of layers) expect(files.some((file) => file.startsWith(`${layer}/`)), layer).toBe(true);
    // A file we know imports through each form: static, type-only and import().
    expect(plan.get('app/cli/main.ts')).toContain('app/cli/commands.ts');
    expect(plan.get('app/cli/commands.ts')).toContain('app/cli/run-entry.ts');
    expect(plan.get('src/server/run-view.ts')).toContain('src/durable/timeline.ts');
  });

  it('has no upward import: src < stages < pipelines < app', () => {
    expect(upwardImports(plan)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(importCircles(plan)).toEqual([]);
  });

  it('builds pipelines from a recipe in app/assemble.ts only', () => {
    expect(pipelineBuilders(files, read)).toEqual([]);
  });

  it('finds each kind of violation in a plan that has one', () => {
    const planted = new Map<string, string[]>([
      ['src/engine/a.ts', ['stages/b.ts']],
      ['stages/b.ts', ['src/engine/a.ts']],
      ['pipelines/c.ts', ['app/d.ts', 'pipelines/c.ts']],
      ['app/d.ts', []],
    ]);
    expect(upwardImports(planted)).toEqual(['src/engine/a.ts imports stages/b.ts', 'pipelines/c.ts imports app/d.ts']);
    expect(importCircles(planted).map((circle) => [...circle].sort())).toEqual([['src/engine/a.ts', 'stages/b.ts'], ['pipelines/c.ts']]);
    const texts: Record<string, string> = { 'app/x.ts': 'const p = buildPipeline(recipe);', 'app/y.ts': '// buildPipeline(recipe) was here', 'app/assemble.ts': 'buildPipeline(recipe)', 'app/z.ts': 'parts.buildPipeline(recipe);' };
    expect(pipelineBuilders(Object.keys(texts), (file) => texts[file]!)).toEqual(['app/x.ts', 'app/z.ts']);
  });
});
