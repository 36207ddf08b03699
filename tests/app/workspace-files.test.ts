// The eight-stage document's ResolveWorkspace / LoadContextFiles: AGENTS.md and STAGELOOP.md from the working folder
// up to the project root (the folder holding .git), --context-file files, and skills in the agentskills.io format.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace, projectRoot } from '../../app/workspace-files.js';

function project() {
  const top = mkdtempSync(join(tmpdir(), 'stageloop-workspace-'));
  const root = join(top, 'repo');
  const sub = join(root, 'packages', 'api');
  mkdirSync(join(root, '.git'), { recursive: true });
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(top, 'AGENTS.md'), 'Above the project: never read.');
  writeFileSync(join(root, 'AGENTS.md'), 'Root rules.');
  writeFileSync(join(sub, 'STAGELOOP.md'), 'Package rules.');
  writeFileSync(join(sub, 'AGENTS.md'), 'Package agents.');
  return { top, root, sub };
}

function skill(folder: string, name: string, front: string, files: Record<string, string> = {}) {
  mkdirSync(join(folder, name), { recursive: true });
  writeFileSync(join(folder, name, 'SKILL.md'), `${front}\n# ${name}\nDo it well.\n`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(folder, name, file, '..'), { recursive: true });
    writeFileSync(join(folder, name, file), text);
  }
}

describe('loadWorkspace', () => {
  it('reads AGENTS.md and STAGELOOP.md from the working folder up to the folder holding .git, the root first', () => {
    const { root, sub } = project();
    expect(projectRoot(sub)).toBe(root);
    const workspace = loadWorkspace({ cwd: sub })!;
    expect(workspace.files).toEqual([
      { path: '../../AGENTS.md', text: 'Root rules.', origin: 'project' },
      { path: 'AGENTS.md', text: 'Package agents.', origin: 'project' },
      { path: 'STAGELOOP.md', text: 'Package rules.', origin: 'project' },
    ]);
    expect(workspace.skills).toEqual([]);
  });

  it('adds --context-file files; one outside the project is marked outside; a missing one is a usage error', () => {
    const { top, sub } = project();
    writeFileSync(join(top, 'NOTES.md'), 'Outside notes.');
    const workspace = loadWorkspace({
      cwd: sub,
      contextFiles: [{ path: join(top, 'NOTES.md'), given: '--context-file NOTES.md' }],
    })!;
    expect(workspace.files.at(-1)).toEqual({ path: join(top, 'NOTES.md'), text: 'Outside notes.', origin: 'outside' });
    expect(() =>
      loadWorkspace({ cwd: sub, contextFiles: [{ path: 'gone.md', given: '--context-file gone.md' }] }),
    ).toThrow(/^--context-file gone.md: no such file/);
  });

  it('reads .stageloop/skills/NAME/SKILL.md and --skills folders: front matter, body and bundled files', () => {
    const { top, root, sub } = project();
    skill(
      join(root, '.stageloop', 'skills'),
      'vat-rates',
      '---\nname: vat-rates\ndescription: "VAT rates: 20%."\n---',
      {
        'rates.csv': 'rate,20',
        'scripts/check.py': 'print(1)',
      },
    );
    skill(join(top, 'more'), 'tone', '---\nname: tone\ndescription: Write politely.\n---');
    const workspace = loadWorkspace({ cwd: sub, skillFolders: [{ path: join(top, 'more'), given: '--skills more' }] })!;
    expect(workspace.skills.map(({ folder: _folder, ...rest }) => rest)).toEqual([
      {
        name: 'vat-rates',
        description: 'VAT rates: 20%.',
        body: '# vat-rates\nDo it well.',
        files: ['rates.csv', 'scripts/check.py'],
        origin: 'project',
      },
      { name: 'tone', description: 'Write politely.', body: '# tone\nDo it well.', files: [], origin: 'outside' },
    ]);
  });

  it('refuses a SKILL.md without the agentskills.io front matter, naming the file and the fix', () => {
    const { root, sub } = project();
    const skills = join(root, '.stageloop', 'skills');
    skill(skills, 'bad', '---\nname: other\ndescription: x\n---');
    expect(() => loadWorkspace({ cwd: sub })).toThrow(
      /SKILL.md: front matter "name" is "other" but the folder is "bad"/,
    );
    skill(skills, 'bad', 'no front matter');
    expect(() => loadWorkspace({ cwd: sub })).toThrow(/SKILL.md: no front matter: start it with "---"/);
    skill(skills, 'bad', '---\nname: bad\n---');
    expect(() => loadWorkspace({ cwd: sub })).toThrow(/front matter "description" must say what the skill does/);
  });

  it('gives nothing when there is nothing to give (the recipe stays as it was)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-workspace-empty-'));
    mkdirSync(join(folder, '.git'));
    expect(loadWorkspace({ cwd: folder })).toBeUndefined();
  });
});
