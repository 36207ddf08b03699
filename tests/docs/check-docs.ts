// Checks a set of markdown files the way the docs suite does: one problem list for all their blocks.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkTypeScriptBlocks } from './check-typescript.js';
import { checkData, extractBlocks, isKnownLanguage, where, type BlockProblem, type DocBlock } from './doc-blocks.js';
import { runShellBlock, shellPlace } from './run-shell.js';

/** README.md, docs/*.md and docs/protocols/*.md: the pages a user reads. */
export function userDocs(root: string): string[] {
  const pages = (folder: string) =>
    readdirSync(join(root, folder))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(root, folder, name));
  return [join(root, 'README.md'), ...pages('docs'), ...pages('docs/protocols')];
}

export function blocksOf(files: string[], root: string): DocBlock[] {
  return files.flatMap((file) => extractBlocks(file, root));
}

export function languageProblems(blocks: DocBlock[]): BlockProblem[] {
  return blocks
    .filter((block) => !isKnownLanguage(block.language))
    .map((block) => ({
      where: where(block, -1),
      message: `a block needs a language the docs suite knows (ts, js, sh, json, text...), got "${block.language}"`,
    }));
}

const checked = (blocks: DocBlock[], languages: string[]) =>
  blocks.filter((block) => languages.includes(block.language) && block.skipReason === undefined);

export function typeScriptProblems(blocks: DocBlock[], root: string): BlockProblem[] {
  const code = checked(blocks, ['ts', 'tsx', 'js']);
  return code.length === 0 ? [] : checkTypeScriptBlocks(code, root);
}

export function dataProblems(blocks: DocBlock[]): BlockProblem[] {
  return checked(blocks, ['json', 'jsonl']).flatMap(checkData);
}

/** The sh blocks of one doc, in order, in one fresh place (a doc's lines may build on the ones before). */
export function shellProblems(blocks: DocBlock[], root: string): BlockProblem[] {
  const place = shellPlace(root);
  return checked(blocks, ['sh']).flatMap((block) => runShellBlock(block, place));
}

export function describeProblems(problems: BlockProblem[]): string {
  return problems.map((problem) => `${problem.where}: ${problem.message}`).join('\n');
}
