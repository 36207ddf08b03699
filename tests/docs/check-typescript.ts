// Type-checks the TypeScript and JavaScript blocks of the docs as one program (one tsc start for all of them), with
// `stageloop` and `stageloop/*` mapped to the declarations package.json's exports publish (dist/, which the suite's
// global set-up builds from the current sources first): checking declarations is ~10x faster than the sources.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { where, type BlockProblem, type DocBlock } from './doc-blocks.js';

/** The names a doc block may use without defining them: the values a reader's app already has. */
export const ambientNames = `
declare const model: import('stageloop').ChatModel;
declare const tools: import('stageloop').ToolRegistry;
declare const pipeline: import('stageloop').Pipeline;
declare const task: string;
declare const runId: string;
declare const token: string;
`;

/** `stageloop/x` → the declaration file package.json publishes for it. */
export function sourcePaths(root: string): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const paths: Record<string, string[]> = {};
  for (const [entry, target] of Object.entries(manifest.exports)) {
    const types = typeof target === 'object' && target !== null ? (target as { types?: string }).types : undefined;
    if (types === undefined) continue;
    const specifier = entry === '.' ? 'stageloop' : `stageloop/${entry.slice(2)}`;
    paths[specifier] = [types];
  }
  return paths;
}

const extensionFor: Record<string, string> = { ts: '.ts', tsx: '.tsx', js: '.mts' };

/** One problem per compiler error, located at its line in the doc. */
export function checkTypeScriptBlocks(blocks: DocBlock[], root: string): BlockProblem[] {
  const virtualFolder = join(root, 'tests/docs/__doc_blocks__');
  const files = new Map<string, { block: DocBlock; text: string }>();
  blocks.forEach((block, index) => {
    // A block with no import or export is still a module, so its names do not clash with another block's.
    const text = /^\s*(import|export)\s/m.test(block.code) ? block.code : `${block.code}\nexport {};`;
    const name = `${block.file.replace(/[^a-zA-Z0-9]+/g, '-')}-${block.line}-${index}${extensionFor[block.language] ?? '.ts'}`;
    files.set(join(virtualFolder, name), { block, text });
  });
  const ambientFile = join(virtualFolder, 'ambient-names.d.ts');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
    jsx: ts.JsxEmit.ReactJSX,
    baseUrl: root,
    paths: sourcePaths(root),
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (path) => files.get(path)?.text ?? (path === ambientFile ? ambientNames : readFile(path));
  host.fileExists = (path) => files.has(path) || path === ambientFile || fileExists(path);
  host.getSourceFile = (path, language, onError) => {
    const text = files.get(path)?.text ?? (path === ambientFile ? ambientNames : undefined);
    return text === undefined ? getSourceFile(path, language, onError) : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram([...files.keys(), ambientFile], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const file = diagnostic.file ? files.get(diagnostic.file.fileName) : undefined;
    if (!file || diagnostic.start === undefined) return { where: diagnostic.file?.fileName ?? 'tsc', message };
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
    return { where: where(file.block, line), message };
  });
}
