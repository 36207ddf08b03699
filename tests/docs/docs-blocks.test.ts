// Docs as tests: every code block of the user docs runs, type-checks or parses (CONTRIBUTING.md "Docs are tested").
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  blocksOf,
  dataProblems,
  describeProblems,
  languageProblems,
  shellProblems,
  typeScriptProblems,
  userDocs,
} from './check-docs.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = userDocs(root);
const blocks = blocksOf(docs, root);

describe('the code blocks of README.md and docs/', () => {
  it('found blocks in the docs', () => {
    expect(blocks.length).toBeGreaterThan(30);
  });

  it('every block names a language the suite knows, so none is left unchecked by accident', () => {
    expect(describeProblems(languageProblems(blocks))).toBe('');
  });

  it('the TypeScript and JavaScript blocks type-check against the package', () => {
    expect(describeProblems(typeScriptProblems(blocks, root))).toBe('');
  }, 180_000);

  it('the json and jsonl blocks parse', () => {
    expect(describeProblems(dataProblems(blocks))).toBe('');
  });

  for (const doc of docs) {
    const own = blocks.filter((block) => block.file === doc.slice(root.length));
    if (!own.some((block) => block.language === 'sh' && block.skipReason === undefined)) continue;
    it(`${doc.slice(root.length)}: the shell lines run offline and exit as their comments say`, () => {
      expect(describeProblems(shellProblems(own, root))).toBe('');
    }, 300_000);
  }
});
