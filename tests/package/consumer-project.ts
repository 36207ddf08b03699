// A temporary app that installs the packed stageloop tarball as a user would: npm ci, offline, no TypeScript loader.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ConsumerProject {
  directory: string;
  /** Paths inside the tarball, e.g. `dist/src/index.js`. */
  tarballFiles: string[];
  /** Runs `node ...args` in the project; never rejects, so a test can assert on a failure. */
  node(args: string[], env?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
  remove(): Promise<void>;
}

interface LockEntry {
  dev?: boolean;
  [key: string]: unknown;
}

/**
 * Packs this repository (dist/ is already built by the test set-up) and installs the tarball into a new project.
 * The project's lock file pins stageloop's dependencies to the versions of this repository's lock file, so
 * `npm ci --offline` installs them from the npm cache that `npm ci` filled: no network. @types/node is added for the
 * TypeScript consumer; typescript itself is not installed there (the check runs this repository's tsc).
 */
export async function installPackedPackage(): Promise<ConsumerProject> {
  const directory = await mkdtemp(join(tmpdir(), 'stageloop-consumer-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', directory], { cwd: repositoryRoot });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = packed!.filename.replace(/^.*\//, '');
  const manifest = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
  const lock = JSON.parse(await readFile(join(repositoryRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const integrity = `sha512-${createHash('sha512').update(await readFile(join(directory, tarball))).digest('base64')}`;
  const dependencies = { stageloop: `file:${tarball}`, '@types/node': lock.packages['node_modules/@types/node']!.version as string };
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies },
    'node_modules/stageloop': { version: manifest.version, resolved: `file:${tarball}`, integrity, dependencies: manifest.dependencies, bin: { stageloop: 'bin/stageloop.js' } },
  };
  const forTypes = new Set(['node_modules/@types/node', 'node_modules/undici-types']);
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || (entry.dev && !forTypes.has(path))) continue;
    const { dev: _dev, ...rest } = entry;
    packages[path] = rest;
  }
  await writeFile(join(directory, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2));
  await writeFile(join(directory, 'package-lock.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2));
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: directory });
  // better-sqlite3 builds its native addon in an install script (from source here, ~80 s); the consumer gets the one
  // this repository's npm ci built, for this same Node.
  await cp(join(repositoryRoot, 'node_modules/better-sqlite3/build'), join(directory, 'node_modules/better-sqlite3/build'), { recursive: true });
  return {
    directory,
    tarballFiles: packed!.files.map((file) => file.path),
    node: (args, env = {}) =>
      new Promise((resolve) => {
        execFile(process.execPath, args, { cwd: directory, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 170_000 }, (error, out, err) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out, stderr: err }),
        );
      }),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

export async function installedPackages(directory: string): Promise<string[]> {
  return readdir(join(directory, 'node_modules'));
}
