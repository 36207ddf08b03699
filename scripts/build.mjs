// Builds dist/: tsc (src, stages, pipelines, app), then the CLI bundle (bundle-cli.mjs), then a stamp listing the
// sources it was built from. One build per install path: `--if-stale` (npm ci's prepare, npm pack's prepack, npm
// link) builds only when a source is newer than the stamp or the set of sources changed; `--incremental` (the tests'
// set-up) lets tsc rebuild only what changed, from clean when a source was added or removed (tsc would leave the old
// file's output behind). With no flag (`npm run build`): always from clean.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from './bundle-cli.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const stampFile = join(root, 'dist/.build-stamp.json');
/** What the build reads: the compiled folders, their configuration, the bundler, the locked dependency versions. */
const sourceFolders = ['app', 'src', 'stages', 'pipelines'];
const sourceFiles = [
  'otel.config.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/bundle-cli.mjs',
  'package-lock.json',
];
/** What a build leaves that bin/stageloop.js and the entries need. */
const outputs = ['dist/.tsbuildinfo', 'dist/cli/main.js', 'dist/src/index.js', 'dist/src/index.d.ts'];

function filesUnder(folder) {
  const found = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

export function sources() {
  return [...sourceFolders.flatMap(filesUnder), ...sourceFiles.filter((file) => existsSync(join(root, file)))].sort();
}

function readStamp() {
  try {
    return { sources: JSON.parse(readFileSync(stampFile, 'utf8')).sources, at: statSync(stampFile).mtimeMs };
  } catch {
    return undefined;
  }
}

/** Why dist/ must be built again, or undefined when it is up to date. */
export function staleness(listed = sources()) {
  const stamp = readStamp();
  if (stamp === undefined) return 'no build stamp';
  const missing = outputs.find((output) => !existsSync(join(root, output)));
  if (missing !== undefined) return `${missing} is missing`;
  if (JSON.stringify(stamp.sources) !== JSON.stringify(listed)) return 'sources were added or removed';
  const newer = listed.find((file) => statSync(join(root, file)).mtimeMs > stamp.at);
  return newer === undefined ? undefined : `${newer} is newer than the build`;
}

function build(clean, listed) {
  if (clean) rmSync(join(root, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return bundleCli().then(() => writeFileSync(stampFile, `${JSON.stringify({ sources: listed })}\n`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  const listed = sources();
  if (mode === '--if-stale') {
    const reason = staleness(listed);
    if (reason === undefined) console.error('stageloop: dist/ is up to date with the sources: not rebuilt');
    else {
      console.error(`stageloop: building dist/ (${reason})`);
      await build(true, listed);
    }
  } else if (mode === '--incremental') {
    const stamp = readStamp();
    await build(stamp === undefined || JSON.stringify(stamp.sources) !== JSON.stringify(listed), listed);
  } else if (mode === undefined) await build(true, listed);
  else throw new Error(`scripts/build.mjs: unknown option ${mode} (--if-stale, --incremental, or none)`);
}
