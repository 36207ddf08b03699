// ResolveWorkspace and LoadContextFiles: the working folder's project (up to the folder holding .git), its AGENTS.md
// and STAGELOOP.md files, the files named by --context-file or `contextFiles`, and the skills (SKILL.md folders).
// Read once when a run is made: the texts are recorded with its recipe, so resume and replay see what it saw.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { StageloopError } from '../src/common/stageloop-error.js';
import { messageOf } from '../src/common/error-message.js';
import type { RunRecipe } from './recipe.js';

export type WorkspaceRecipe = NonNullable<RunRecipe['workspace']>;
export type ContextFileRecipe = WorkspaceRecipe['files'][number];
export type SkillRecipe = WorkspaceRecipe['skills'][number];

/** The names read in every folder from the working one up to the project root, the root's first. */
export const contextFileNames = ['AGENTS.md', 'STAGELOOP.md'] as const;
/** More than this is not read: a context file is instructions, not a data set (the stage truncates to its budget). */
const maxReadChars = 200_000;
/** A skill lists at most this many bundled files. */
const maxSkillFiles = 100;

export interface WorkspaceSources {
  cwd: string;
  /** --context-file PATH (relative to cwd) and the config's `contextFiles`, in that order. */
  contextFiles?: readonly { path: string; given: string }[];
  /** --skills DIR and the config's `skills`: folders holding NAME/SKILL.md folders. */
  skillFolders?: readonly { path: string; given: string }[];
}

/** The folder holding .git above (or at) `cwd`, else undefined: the project's root. */
export function projectRoot(cwd: string): string | undefined {
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/** What a run made in `cwd` is given; undefined when there is nothing (the recipe stays as it was). */
export function loadWorkspace(sources: WorkspaceSources): WorkspaceRecipe | undefined {
  const cwd = resolve(sources.cwd);
  const root = projectRoot(cwd);
  const inside = (path: string) => isInside(path, root ?? cwd);
  const files: ContextFileRecipe[] = [];
  const seen = new Set<string>();
  const add = (path: string, given: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const origin = inside(path) ? 'project' : 'outside';
    files.push({ path: shownPath(path, cwd, origin), text: readText(path, given), origin });
  };
  // The root's file first: a folder's own file comes later, closer to the task, and says the more specific thing.
  for (const folder of foldersUp(cwd, root).reverse())
    for (const name of contextFileNames) if (isFile(join(folder, name))) add(join(folder, name), name);
  for (const { path, given } of sources.contextFiles ?? []) {
    const full = resolve(cwd, path);
    if (!isFile(full)) throw new StageloopError('usage', `${given}: no such file: give the path of a readable file`);
    add(full, given);
  }
  const skillFolders = [
    ...new Set(
      [root, cwd].filter((folder) => folder !== undefined).map((folder) => join(folder, '.stageloop', 'skills')),
    ),
  ].filter(isFolder);
  for (const { path, given } of sources.skillFolders ?? []) {
    const full = resolve(cwd, path);
    if (!isFolder(full)) throw new StageloopError('usage', `${given}: no such folder: give a folder of NAME/SKILL.md`);
    skillFolders.push(full);
  }
  const skills: SkillRecipe[] = [];
  for (const folder of skillFolders)
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = join(folder, entry.name, 'SKILL.md');
      if (!entry.isDirectory() || !isFile(file) || skills.some((skill) => skill.name === entry.name)) continue;
      const origin = inside(file) ? 'project' : 'outside';
      skills.push(readSkill(join(folder, entry.name), shownPath(file, cwd, origin), origin === 'project'));
    }
  if (files.length === 0 && skills.length === 0) return undefined;
  return { files, skills };
}

/** A skill folder in the agentskills.io format: front matter `name` (the folder's name) and `description`, then the body. */
export function readSkill(folder: string, shown: string, trusted = true): SkillRecipe {
  const text = readText(join(folder, 'SKILL.md'), shown);
  const front = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  const fields = new Map<string, string>();
  for (const line of front?.[1]?.split(/\r?\n/) ?? []) {
    const field = /^([a-z-]+):\s*(.*)$/.exec(line);
    if (field) fields.set(field[1]!, field[2]!.trim().replace(/^(["'])(.*)\1$/, '$2'));
  }
  const name = fields.get('name') ?? '';
  const description = fields.get('description') ?? '';
  const folderName = folder.split(sep).at(-1)!;
  const bad = (problem: string): never => {
    throw new StageloopError('config', `${shown}: ${problem}`);
  };
  if (front === null) bad('no front matter: start it with "---", a "name:" line, a "description:" line and "---"');
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name.length > 64)
    bad(
      `front matter "name" must be lowercase letters, digits and single hyphens (at most 64), got ${JSON.stringify(name)}`,
    );
  if (name !== folderName)
    bad(`front matter "name" is "${name}" but the folder is "${folderName}": make them the same`);
  if (description === '' || description.length > 1024)
    bad('front matter "description" must say what the skill does and when to use it (1 to 1024 characters)');
  return {
    name,
    description,
    body: text.slice(front![0].length).trim(),
    folder,
    files: bundledFiles(folder),
    origin: trusted ? 'project' : 'outside',
  };
}

function bundledFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= maxSkillFiles || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && path !== join(folder, 'SKILL.md'))
        found.push(relative(folder, path).split(sep).join('/'));
    }
  };
  walk(folder);
  return found;
}

function foldersUp(cwd: string, root: string | undefined): string[] {
  const folders: string[] = [];
  for (let folder = cwd; ; folder = dirname(folder)) {
    folders.push(folder);
    if (folder === root || dirname(folder) === folder) return folders;
  }
}

function readText(path: string, given: string): string {
  try {
    return readFileSync(path, 'utf8').slice(0, maxReadChars);
  } catch (error) {
    throw new StageloopError('usage', `${given}: cannot be read (${messageOf(error)})`);
  }
}

function isInside(path: string, folder: string): boolean {
  const path_ = relative(folder, path);
  return path_ !== '' && !path_.startsWith('..') && !path_.startsWith(sep) && !/^[a-zA-Z]:/.test(path_);
}

/** A project file relative to the working folder (../AGENTS.md); one from outside by its full path. */
function shownPath(path: string, cwd: string, origin: 'project' | 'outside'): string {
  return origin === 'outside' ? path : relative(cwd, path).split(sep).join('/');
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
