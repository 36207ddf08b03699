// The user docs say what the code does: no issue references or notes about work in progress (CONTRIBUTING.md).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { userDocs } from './check-docs.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Lines with an issue reference (`#24`, `issue 24`) or a contributor's note, as `file:line: text`. */
export function internalNotes(file: string, text: string): string[] {
  const note = /(?<![&\w])#\d+\b|\bissues? #?\d+|\bstill to do\b|\bTODO\b|\bFIXME\b/i;
  return text.split('\n').flatMap((line, index) => (note.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

/** Lines that point at a file of the repository an installed package does not have (src/, tests/, bench/...). */
export function repositoryPaths(file: string, text: string): string[] {
  const path = /(?<![\w./-])(src|tests|stages|pipelines|app|scripts|bench|contributors)\/[\w./-]*/;
  // An HTML comment (a doc-test note) is not shown to a reader.
  return text
    .split('\n')
    .flatMap((line, index) =>
      path.test(line) && !line.trim().startsWith('<!--') ? [`${file}:${index + 1}: ${line.trim()}`] : [],
    );
}

describe('the user docs', () => {
  it('carry no issue numbers or internal notes', () => {
    const found = userDocs(root).flatMap((path) => internalNotes(path.slice(root.length), readFileSync(path, 'utf8')));
    expect(found).toEqual([]);
  });

  it('name no repository files: an installed package has docs/, not src/ or tests/ (CONTRIBUTING.md has the layout)', () => {
    const found = userDocs(root).flatMap((path) =>
      repositoryPaths(path.slice(root.length), readFileSync(path, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('the repository path check finds a planted path and leaves package entries and URLs alone', () => {
    const planted = 'See src/engine/state.ts.\nMeasured in bench/README.md.\n`stageloop/stages` and http://x/app/y';
    expect(repositoryPaths('planted.md', planted)).toEqual([
      'planted.md:1: See src/engine/state.ts.',
      'planted.md:2: Measured in bench/README.md.',
    ]);
  });

  it('the check finds a planted issue reference, and leaves HTML entities and anchors alone', () => {
    const planted =
      'Fixed in #24.\nSee issue 7 for more.\nWiring still to do.\n`&#111;` and [defaults](guards.md#defaults)';
    expect(internalNotes('planted.md', planted)).toEqual([
      'planted.md:1: Fixed in #24.',
      'planted.md:2: See issue 7 for more.',
      'planted.md:3: Wiring still to do.',
    ]);
  });
});
