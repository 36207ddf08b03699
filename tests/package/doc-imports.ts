// The names README.md and docs/**/*.md import from stageloop's entries, read from their import lines.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface EntryNames {
  values: Set<string>;
  types: Set<string>;
}

async function markdownFiles(root: string): Promise<string[]> {
  const docs = await readdir(join(root, 'docs'), { recursive: true });
  return ['README.md', ...docs.filter((file) => file.endsWith('.md')).map((file) => join('docs', file))];
}

/** Entry (`stageloop`, `stageloop/durable`, ...) to the value and type names the docs import from it. */
export async function docImports(root: string): Promise<Map<string, EntryNames>> {
  const entries = new Map<string, EntryNames>();
  for (const file of await markdownFiles(root)) {
    const text = await readFile(join(root, file), 'utf8');
    for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(stageloop(?:\/[a-z]+)?)'/g)) {
      const names = entries.get(match[3]!) ?? { values: new Set<string>(), types: new Set<string>() };
      entries.set(match[3]!, names);
      for (const part of match[2]!
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)) {
        const typeOnly = match[1] !== undefined || part.startsWith('type ');
        const name = part.replace(/^type\s+/, '').split(/\s+as\s+/)[0]!;
        (typeOnly ? names.types : names.values).add(name);
      }
    }
  }
  return entries;
}

/** A TypeScript module importing every one of those names (aliased, so two entries may share a name). */
export function typeCheckedImports(entries: Map<string, EntryNames>): string {
  const lines: string[] = [];
  const uses: string[] = [];
  for (const [entry, names] of entries) {
    const parts = [
      ...[...names.values].map((name) => ({ name, type: false })),
      ...[...names.types].map((name) => ({ name, type: true })),
    ].map(({ name, type }) => {
      const alias = `doc${uses.length + 1}`;
      uses.push(type ? alias : `typeof ${alias}`);
      return `${type ? 'type ' : ''}${name} as ${alias}`;
    });
    lines.push(`import { ${parts.join(', ')} } from '${entry}';`);
  }
  return `${lines.join('\n')}\nexport type DocNames = [${uses.join(', ')}];\n`;
}
