// The matrix rows of context files and skills: read when the run is made and recorded with it, so every verb (and
// the replays) sees the same prompt and tools.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome, Row, RowContext } from './matrix-harness.js';

/** A folder holding one skill (agentskills.io SKILL.md). */
function skillFolder(context: RowContext): string {
  const folder = join(context.folder, 'skills');
  mkdirSync(join(folder, 'tone'), { recursive: true });
  writeFileSync(join(folder, 'tone', 'SKILL.md'), '---\nname: tone\ndescription: Write politely.\n---\nBe polite.\n');
  return folder;
}

export function workspaceRows(expected: Outcome): Array<Row & { expected: Outcome }> {
  return [
    {
      name: 'context files + skills',
      flags: (context) => [
        '--context-file',
        context.file('notes.md', 'Answer briefly.'),
        '--skills',
        skillFolder(context),
      ],
      expected,
    },
  ];
}
