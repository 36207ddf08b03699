// The tarball's package.json without `prepare`: npm runs prepack (`strip`) before it reads the manifest to pack, and
// postpack (`restore`) after. `prepare` builds dist/ in a clone (npm ci, npm link); in the tarball dist/ is built
// already, and npm 11 warns that a tarball's prepare is "not covered by allowScripts", as if installing built it.
// Both writes are a rename, so a reader of package.json meanwhile sees one whole file; a leftover copy (a pack that
// was killed) is put back before anything else.
import { existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const manifest = fileURLToPath(new URL('../package.json', import.meta.url));
const kept = `${manifest}.before-pack`;

function restore() {
  if (!existsSync(kept)) return;
  const { atime, mtime } = statSync(kept);
  renameSync(kept, manifest);
  // The original's time too: a package.json that looks edited would make the next build check think more changed.
  utimesSync(manifest, atime, mtime);
}

function strip() {
  restore();
  const text = readFileSync(manifest, 'utf8');
  const parsed = JSON.parse(text);
  if (parsed.scripts?.prepare === undefined) return;
  delete parsed.scripts.prepare;
  const { atime, mtime } = statSync(manifest);
  writeFileSync(kept, text);
  utimesSync(kept, atime, mtime);
  writeFileSync(`${manifest}.packing`, `${JSON.stringify(parsed, null, 2)}\n`);
  renameSync(`${manifest}.packing`, manifest);
}

const action = process.argv[2];
if (action === 'strip') strip();
else if (action === 'restore') restore();
else throw new Error(`scripts/pack-manifest.mjs: strip or restore, not ${action}`);
