// Docs as tests: every fenced block of the user docs is extracted and checked by its language, so a doc that drifts
// from the code fails the suite. The rules (languages, the skip annotation, the names blocks may use) are in
// CONTRIBUTING.md "Docs are tested".
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** What each language means to the suite. */
export const blockLanguages = {
  ts: 'type-checked',
  tsx: 'type-checked',
  js: 'type-checked',
  sh: 'run',
  json: 'parsed',
  jsonl: 'parsed',
  yaml: 'shown only (a CI file for another machine)',
  text: 'shown only (an output or a synopsis, not a command)',
} as const;
export type BlockLanguage = keyof typeof blockLanguages;

export interface DocBlock {
  /** The doc, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  code: string;
  /** Why the block is not run, from `<!-- doc-test: skip: REASON -->` on the line above the fence. */
  skipReason?: string;
}

const skipAnnotation = /^<!--\s*doc-test:\s*skip:\s*(.+?)\s*-->$/;

/** Every fenced block of one markdown file, in order. */
export function extractBlocks(path: string, root: string): DocBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\S*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]!); index++) body.push(lines[index]!);
    const previous = start > 0 ? skipAnnotation.exec(lines[start - 1]!.trim()) : null;
    blocks.push({
      file: relative(root, path),
      line: start + 1,
      language: open[1] ?? '',
      code: body.join('\n'),
      ...(previous ? { skipReason: previous[1]! } : {}),
    });
  }
  return blocks;
}

export function isKnownLanguage(language: string): language is BlockLanguage {
  return Object.hasOwn(blockLanguages, language);
}

/** A problem found in one block, located in the doc. */
export interface BlockProblem {
  where: string;
  message: string;
}

export function where(block: DocBlock, lineInBlock = 0): string {
  return `${block.file}:${block.line + 1 + lineInBlock}`;
}

/** json blocks parse as one value, jsonl blocks as one value a line. */
export function checkData(block: DocBlock): BlockProblem[] {
  const parse = (text: string, lineInBlock: number): BlockProblem[] => {
    try {
      JSON.parse(text);
      return [];
    } catch (error) {
      return [{ where: where(block, lineInBlock), message: `invalid JSON: ${(error as Error).message}` }];
    }
  };
  if (block.language === 'json') return parse(block.code, 0);
  return block.code.split('\n').flatMap((text, lineInBlock) => (text.trim() === '' ? [] : parse(text, lineInBlock)));
}
