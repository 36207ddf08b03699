// The import plan: src/ < stages/ < pipelines/ < app/, each importing only its own layer and the ones below, no file
// importing itself through others, and app/assemble.ts the only file that builds a pipeline from a recipe. Inside src/
// the folders keep an order too; inside stages/ each family imports only its own files, stages/shared/ and (types only)
// other families' *-slot.ts files; the app root never imports app/cli/.
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
    const ours = imported
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(root, resolve(root, dirname(file), name.replace(/\.js$/, '.ts'))));
    plan.set(file, ours);
  }
  return plan;
}

const layerOf = (file: string) => layers.indexOf(file.split('/')[0] as (typeof layers)[number]);

function upwardImports(plan: ReadonlyMap<string, readonly string[]>): string[] {
  return [...plan].flatMap(([file, targets]) =>
    targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} imports ${target}`),
  );
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

/**
 * The order inside src/: a folder imports only folders of its own rank or lower. Folders of one rank may import each
 * other one way only (sessions -> store, tools -> sessions, eval -> server): a two-way tie is a violation too.
 * src/testing and src/index.ts count as entries.
 */
const srcRanks: ReadonlyArray<readonly string[]> = [
  ['common'],
  ['model'],
  ['engine'],
  ['tools', 'store', 'sessions'],
  ['durable'],
  ['tracing', 'stream', 'agents'],
  ['server', 'workers', 'eval'],
  ['entries', 'testing', 'index.ts'],
];
const srcFolderOf = (file: string) => file.split('/')[1]!;
const srcRankOf = (file: string) => srcRanks.findIndex((rank) => rank.includes(srcFolderOf(file)));

function srcOrderViolations(plan: ReadonlyMap<string, readonly string[]>): string[] {
  const violations: string[] = [];
  const ties = new Set<string>();
  for (const [file, targets] of plan) {
    if (!file.startsWith('src/')) continue;
    for (const target of targets.filter((each) => each.startsWith('src/'))) {
      const [from, to] = [srcRankOf(file), srcRankOf(target)];
      if (from < 0 || to < 0) violations.push(`${file} imports ${target}: a folder of src/ without a rank`);
      else if (to > from) violations.push(`${file} imports ${target}`);
      else if (to === from && srcFolderOf(file) !== srcFolderOf(target))
        ties.add(`${srcFolderOf(file)} -> ${srcFolderOf(target)}`);
    }
  }
  for (const tie of ties) {
    const [from, to] = tie.split(' -> ');
    if (from! < to! && ties.has(`${to} -> ${from}`)) violations.push(`src/${from} and src/${to} import each other`);
  }
  return violations;
}

/** One import of ours with whether it brings types only (`import type`, `export type`, or every name marked `type`). */
interface ImportOf {
  target: string;
  typeOnly: boolean;
}

function importsWithKinds(file: string, text: string): ImportOf[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found: ImportOf[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (specifier.startsWith('.'))
      found.push({ target: relative(root, resolve(root, dirname(file), specifier.replace(/\.js$/, '.ts'))), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named =
        clause?.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings)
          ? clause.namedBindings.elements
          : undefined;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            named.length > 0 &&
            named.every((element) => element.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The family of a stage file (stages/FAMILY/...); barrels and the files at the root of stages/ belong to none. */
const familyOf = (file: string) => {
  const parts = file.split('/');
  return parts.length < 3 || parts.at(-1) === 'index.ts' ? undefined : parts[1];
};

/**
 * Imports that cross stage families: a family file (stages/shared/ included) may import its own family's files,
 * stages/shared/, and another family's *-slot.ts file for its types only. Barrels (index.ts) and the files at the
 * root of stages/ (which put stages of several families together) may import any stage file.
 */
function familyCrossings(imports: ReadonlyMap<string, readonly ImportOf[]>): string[] {
  const crossings: string[] = [];
  for (const [file, targets] of imports) {
    const family = familyOf(file);
    if (family === undefined) continue;
    for (const { target, typeOnly } of targets) {
      if (!target.startsWith('stages/') || target.split('/')[1] === family) continue;
      if (target.startsWith('stages/shared/') && family !== 'shared') continue;
      if (typeOnly && target.endsWith('-slot.ts')) continue;
      crossings.push(`${file} imports ${target}${typeOnly ? ' (types)' : ''}`);
    }
  }
  return crossings;
}

/** app/*.ts never imports app/cli/: the commands are built on the app, not the other way round. */
function appRootImportsCli(plan: ReadonlyMap<string, readonly string[]>): string[] {
  return [...plan]
    .filter(([file]) => /^app\/[^/]+\.ts$/.test(file))
    .flatMap(([file, targets]) =>
      targets.filter((target) => target.startsWith('app/cli/')).map((target) => `${file} imports ${target}`),
    );
}

const files = layers.flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('the import plan', () => {
  const plan = importPlan(files, read);

  it('reads the imports of every layer', () => {
    for (const layer of layers)
      expect(
        files.some((file) => file.startsWith(`${layer}/`)),
        layer,
      ).toBe(true);
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

  it('keeps the order inside src/: common < model < engine < tools/store/sessions < durable < tracing/stream/agents < server/workers/eval < entries', () => {
    expect(srcOrderViolations(plan)).toEqual([]);
  });

  it("keeps the stage families apart: own files, stages/shared/, and other families' *-slot.ts files for types", () => {
    const stageFiles = files.filter((file) => file.startsWith('stages/'));
    expect(familyCrossings(new Map(stageFiles.map((file) => [file, importsWithKinds(file, read(file))])))).toEqual([]);
  });

  it('the app root never imports app/cli/', () => {
    expect(appRootImportsCli(plan)).toEqual([]);
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
    expect(importCircles(planted).map((circle) => [...circle].sort())).toEqual([
      ['src/engine/a.ts', 'stages/b.ts'],
      ['pipelines/c.ts'],
    ]);
    const texts: Record<string, string> = {
      'app/x.ts': 'const p = buildPipeline(recipe);',
      'app/y.ts': '// buildPipeline(recipe) was here',
      'app/assemble.ts': 'buildPipeline(recipe)',
      'app/z.ts': 'parts.buildPipeline(recipe);',
    };
    expect(pipelineBuilders(Object.keys(texts), (file) => texts[file]!)).toEqual(['app/x.ts', 'app/z.ts']);
    const srcPlan = new Map<string, string[]>([
      ['src/engine/stage.ts', ['src/tools/tool.ts', 'src/model/types.ts']],
      ['src/tools/tool.ts', ['src/engine/stage.ts', 'src/durable/journal.ts']],
      ['src/store/a.ts', ['src/sessions/b.ts']],
      ['src/sessions/b.ts', ['src/store/c.ts']],
      ['src/index.ts', ['src/testing/index.ts', 'src/server/app.ts']],
      ['src/wild/d.ts', ['src/common/json.ts']],
    ]);
    expect(srcOrderViolations(srcPlan)).toEqual([
      'src/engine/stage.ts imports src/tools/tool.ts',
      'src/tools/tool.ts imports src/durable/journal.ts',
      'src/wild/d.ts imports src/common/json.ts: a folder of src/ without a rank',
      'src/sessions and src/store import each other',
    ]);
    const family = (target: string, typeOnly = false): ImportOf => ({ target, typeOnly });
    const stageImports = new Map<string, ImportOf[]>([
      [
        'stages/loop/think.ts',
        [
          family('stages/loop/act.ts'),
          family('stages/shared/text.ts'),
          family('stages/plan/plan-slot.ts', true),
          family('stages/plan/plan-steps.ts'),
          family('stages/plan/plan-slot.ts'),
          family('stages/guards/limits.ts', true),
        ],
      ],
      ['stages/shared/prompts.ts', [family('stages/plan/plan-slot.ts', true), family('stages/plan/plan-render.ts')]],
      ['stages/guards/index.ts', [family('stages/pipeline-policies.ts')]],
      ['stages/pipeline-policies.ts', [family('stages/approval/approval.ts')]],
    ]);
    expect(familyCrossings(stageImports)).toEqual([
      'stages/loop/think.ts imports stages/plan/plan-steps.ts',
      'stages/loop/think.ts imports stages/plan/plan-slot.ts',
      'stages/loop/think.ts imports stages/guards/limits.ts (types)',
      'stages/shared/prompts.ts imports stages/plan/plan-render.ts',
    ]);
    const kinds = importsWithKinds(
      'stages/loop/x.ts',
      "import type { A } from './a.js';\nimport { type B, type C } from './b.js';\nimport { D, type E } from './c.js';\nimport type {} from '../plan/plan-slot.js';\nexport { F } from './f.js';\nexport type { G } from './g.js';\ntype H = import('./h.js').H;\nconst i = () => import('./i.js');",
    );
    expect(kinds.map((each) => `${each.target}${each.typeOnly ? ' type' : ''}`)).toEqual([
      'stages/loop/a.ts type',
      'stages/loop/b.ts type',
      'stages/loop/c.ts',
      'stages/plan/plan-slot.ts type',
      'stages/loop/f.ts',
      'stages/loop/g.ts type',
      'stages/loop/h.ts type',
      'stages/loop/i.ts',
    ]);
    expect(
      appRootImportsCli(
        new Map([
          ['app/a.ts', ['app/cli/args.ts', 'app/b.ts']],
          ['app/cli/c.ts', ['app/cli/args.ts']],
        ]),
      ),
    ).toEqual(['app/a.ts imports app/cli/args.ts']);
  });
});
