// The import plan's rules as functions over a plan (file -> its imports), apart so the test reads as the rule list.
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const layers = ['src', 'stages', 'pipelines', 'app'] as const;

export function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Every file's imports of ours (static, type-only, re-exports, `import()` and module augmentations), as paths from the root. */
export function importPlan(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
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

export function upwardImports(plan: ReadonlyMap<string, readonly string[]>): string[] {
  return [...plan].flatMap(([file, targets]) =>
    targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} imports ${target}`),
  );
}

/** Each circle once, as the path that closes it (Tarjan's strongly connected components). */
export function importCircles(plan: ReadonlyMap<string, readonly string[]>): string[][] {
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
export function pipelineBuilders(files: readonly string[], read: (file: string) => string): string[] {
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

export function srcOrderViolations(plan: ReadonlyMap<string, readonly string[]>): string[] {
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
export interface ImportOf {
  target: string;
  typeOnly: boolean;
}

export function importsWithKinds(file: string, text: string): ImportOf[] {
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
export function familyCrossings(imports: ReadonlyMap<string, readonly ImportOf[]>): string[] {
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
export function appRootImportsCli(plan: ReadonlyMap<string, readonly string[]>): string[] {
  return [...plan]
    .filter(([file]) => /^app\/[^/]+\.ts$/.test(file))
    .flatMap(([file, targets]) =>
      targets.filter((target) => target.startsWith('app/cli/')).map((target) => `${file} imports ${target}`),
    );
}
