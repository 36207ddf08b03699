// Skills (agentskills.io): load_skill brings a skill's full text and the list of its files; read_skill_file reads only
// a listed file.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/tools/registry.js';
import { skillTools } from '../../src/tools/skills.js';

const folder = mkdtempSync(join(tmpdir(), 'stageloop-skill-'));
mkdirSync(join(folder, 'scripts'));
writeFileSync(join(folder, 'scripts', 'check.py'), 'print("checked")');
writeFileSync(join(tmpdir(), 'secret.txt'), 'secret');
const vat = {
  name: 'vat-rates',
  description: 'VAT rates.',
  body: 'Multiply by 1.2.',
  folder,
  files: ['scripts/check.py'],
};
const call = (name: string, args: object) => ({ id: name, name, arguments: JSON.stringify(args) });

describe('skill tools', () => {
  it('are offered only with skills, read-only', () => {
    expect(skillTools([])).toEqual([]);
    expect(skillTools([{ ...vat, files: [] }]).map((tool) => tool.name)).toEqual(['load_skill']);
    expect(skillTools([vat]).map((tool) => [tool.name, tool.effects])).toEqual([
      ['load_skill', 'read'],
      ['read_skill_file', 'read'],
    ]);
  });

  it('load_skill returns the body and the files; read_skill_file reads a listed file and nothing else', async () => {
    const registry = new ToolRegistry(skillTools([vat]));
    const [loaded, unknown, read, escaped] = await registry.executeAll([
      call('load_skill', { name: 'vat-rates' }),
      call('load_skill', { name: 'nope' }),
      call('read_skill_file', { name: 'vat-rates', path: 'scripts/check.py' }),
      call('read_skill_file', { name: 'vat-rates', path: '../secret.txt' }),
    ]);
    expect(loaded).toMatchObject({ ok: true });
    expect(loaded!.ok && loaded!.content).toContain(
      'Multiply by 1.2.\n\nFiles of this skill (read one with read_skill_file):\n- scripts/check.py',
    );
    expect(unknown).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/no skill named "nope": the skills are vat-rates/) },
    });
    expect(read).toMatchObject({ ok: true, content: 'print("checked")' });
    expect(escaped).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/has no file "..\/secret.txt"/) },
    });
  });
});
