// The docs a help text or an error names ("docs/approvals.md") as a path the user can open from any folder: the docs/
// folder ships in the package, so it is beside this file's package.json, in a clone as in node_modules/stageloop.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let folder: string | null | undefined;

/** The package's docs folder (dist/app/cli/ or the bundle's dist/cli/ is two or three levels below it), or null. */
export function docsFolder(): string | null {
  if (folder !== undefined) return folder;
  for (let directory = dirname(fileURLToPath(import.meta.url)), step = 0; step < 4; step++) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name?: unknown };
      if (manifest.name === 'stageloop')
        return (folder = existsSync(join(directory, 'docs')) ? join(directory, 'docs') : null);
    } catch {
      // No package.json here: look one level up.
    }
    directory = dirname(directory);
  }
  return (folder = null);
}

/** `text` with each "docs/NAME.md" it names replaced by that file's full path, where the file is there. */
export function withDocsPaths(text: string): string {
  const docs = docsFolder();
  if (docs === null) return text;
  return text.replace(/(?<![\w/.-])docs\/([\w/-]+\.md)\b/g, (named, name: string) =>
    existsSync(join(docs, name)) ? join(docs, name) : named,
  );
}
