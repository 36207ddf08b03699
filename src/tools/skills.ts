// The skills' tools: load_skill brings a skill's full instructions (and the list of its bundled files) into the
// context when the model asks; read_skill_file reads one of those files. Both only read.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from './define-tool.js';

export const loadSkillToolName = 'load_skill';
export const readSkillFileToolName = 'read_skill_file';

/** A skill as the run was given it (front matter, body, and where its files are). */
export interface Skill {
  name: string;
  description: string;
  body: string;
  /** The skill's folder, where read_skill_file finds its bundled files. */
  folder: string;
  /** Its bundled files, relative to the folder ('/'-separated). */
  files: readonly string[];
}

/** A bundled file is read up to this many characters. */
const maxFileChars = 50_000;

/** load_skill, and read_skill_file when a skill bundles files; none for no skills. */
export function skillTools(skills: readonly Skill[]): Tool[] {
  if (skills.length === 0) return [];
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const names = skills.map((skill) => skill.name);
  const known = (name: string) => {
    const skill = byName.get(name);
    if (skill === undefined) throw new Error(`no skill named "${name}": the skills are ${names.join(', ')}`);
    return skill;
  };
  const load = defineTool({
    name: loadSkillToolName,
    description: `Load a skill's full instructions (and the list of its files) when the task needs it. The skills: ${names.join(', ')}.`,
    parameters: z.object({ name: z.string().min(1).describe('the skill, one of the names listed') }),
    effects: 'read',
    execute({ name }) {
      const skill = known(name);
      const files =
        skill.files.length === 0
          ? ''
          : `\n\nFiles of this skill (read one with ${readSkillFileToolName}):\n${skill.files.map((file) => `- ${file}`).join('\n')}`;
      return `Skill "${skill.name}": ${skill.description}\n\n${skill.body}${files}`;
    },
  });
  if (skills.every((skill) => skill.files.length === 0)) return [load];
  const read = defineTool({
    name: readSkillFileToolName,
    description: `Read a file a loaded skill lists (its scripts, references, templates), by the skill's name and the file's path.`,
    parameters: z.object({ name: z.string().min(1), path: z.string().min(1) }),
    effects: 'read',
    async execute({ name, path }) {
      const skill = known(name);
      // Only a listed file: a path the skill does not list (../, absolute) is never opened.
      if (!skill.files.includes(path))
        throw new Error(`skill "${name}" has no file "${path}": its files are ${skill.files.join(', ') || 'none'}`);
      const text = await readFile(join(skill.folder, ...path.split('/')), 'utf8');
      return text.length <= maxFileChars ? text : `${text.slice(0, maxFileChars)}\n[cut at ${maxFileChars} characters]`;
    },
  });
  return [load, read];
}
