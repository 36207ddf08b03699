// A temporary app that installs the packed stageloop tarball as a user would: npm ci, offline, no TypeScript loader.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';

const run = promisify(execFile);
export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ConsumerProject {
  directory: string;
  /** Paths inside the tarball, e.g. `dist/src/index.js`. */
  tarballFiles: string[];
  /** Runs `node ...args` in the project; never rejects, so a test can assert on a failure. */
  node(
    args: string[],
    env?: Record<string, string>,
    timeoutMs?: number,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  remove(): Promise<void>;
}

interface LockEntry {
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

/** Node's lookup: the nearest node_modules/NAME above the package at `from`. */
function resolvedPath(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let base = from; ; base = base.replace(/\/?node_modules\/(?:@[^/]+\/)?[^/]+$/, '')) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (base === '') return undefined;
  }
}

/** The lock entries of `roots` and everything they depend on, as the repository's npm ci laid them out. */
function closureOf(packages: Record<string, LockEntry>, roots: readonly string[]): Set<string> {
  const found = new Set<string>();
  const visit = (path: string | undefined) => {
    if (path === undefined || found.has(path)) return;
    found.add(path);
    const entry = packages[path]!;
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }))
      visit(resolvedPath(packages, path, name));
  };
  for (const root of roots) visit(resolvedPath(packages, '', root));
  return found;
}

/**
 * Packs this repository (dist/ is already built by the test set-up) and installs the tarball into a new project.
 * The project's lock file pins stageloop's dependencies to the versions of this repository's lock file, so
 * `npm ci --offline` installs them from the npm cache that `npm ci` filled: no network. @types/node is added for the
 * TypeScript consumer; typescript itself is not installed there (the check runs this repository's tsc).
 */
export async function installPackedPackage(): Promise<ConsumerProject> {
  const directory = await mkdtemp(join(tmpdir(), 'stageloop-consumer-'));
  const { tarball, files } = await packInto(directory);
  const manifest = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  const lock = JSON.parse(await readFile(join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const integrity = `sha512-${createHash('sha512')
    .update(await readFile(join(directory, tarball)))
    .digest('base64')}`;
  // The app installs every optional part too (the peers, pinned as this repository's lock has them), except pg.
  const versionOf = (name: string) => lock.packages[`node_modules/${name}`]!.version as string;
  const parts = Object.keys(manifest.peerDependencies).filter((name) => name !== 'pg');
  const dependencies: Record<string, string> = {
    stageloop: `file:${tarball}`,
    '@types/node': versionOf('@types/node'),
  };
  for (const name of parts) dependencies[name] = versionOf(name);
  const { peerDependencies, peerDependenciesMeta } = manifest;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies },
    'node_modules/stageloop': {
      version: manifest.version,
      resolved: `file:${tarball}`,
      integrity,
      dependencies: manifest.dependencies,
      peerDependencies,
      peerDependenciesMeta,
      bin: { stageloop: 'bin/stageloop.js' },
    },
  };
  for (const path of closureOf(lock.packages, [...Object.keys(manifest.dependencies), ...parts, '@types/node'])) {
    const { dev: _dev, peer: _peer, devOptional: _devOptional, ...rest } = lock.packages[path]!;
    packages[path] = rest;
  }
  await writeFile(
    join(directory, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2),
  );
  await writeFile(
    join(directory, 'package-lock.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: directory });
  // better-sqlite3 builds its native addon in an install script (from source here, ~80 s); the consumer gets the one
  // this repository's npm ci built, for this same Node.
  await cp(
    join(repositoryRoot, 'node_modules/better-sqlite3/build'),
    join(directory, 'node_modules/better-sqlite3/build'),
    { recursive: true },
  );
  return projectAt(directory, files);
}

/** Packs this repository (dist/ is already built by the test set-up) into `directory`: the tarball's name and files. */
export async function packInto(directory: string): Promise<{ tarball: string; files: string[] }> {
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', directory], {
    cwd: repositoryRoot,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: packed!.filename.replace(/^.*\//, ''), files: packed!.files.map((file) => file.path) };
}

/** A project in `directory` whose node() runs with nothing of this repository's environment but PATH. */
export function projectAt(directory: string, tarballFiles: string[]): ConsumerProject {
  return {
    directory,
    tarballFiles,
    node: (args, env = {}, timeoutMs = 60_000) =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          args,
          { cwd: directory, env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs },
          (error, out, err) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out, stderr: err }),
        );
      }),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/** A strict nodenext consumer that checks every declaration it reads, its dependencies' too. */
export const strictConsumerOptions = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  target: 'es2022',
  strict: true,
  skipLibCheck: false,
  noEmit: true,
};

/** Runs this repository's tsc in the project with `compilerOptions` over `files` (config `configName`); its output. */
export async function typeCheckIn(
  project: ConsumerProject,
  configName: string,
  compilerOptions: Record<string, unknown>,
  files: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  await writeFile(join(project.directory, configName), JSON.stringify({ compilerOptions, files }));
  const tsc = createRequire(join(repositoryRoot, 'package.json')).resolve('typescript/bin/tsc');
  return project.node([tsc, '-p', configName], {}, timeoutMs);
}

export async function installedPackages(directory: string): Promise<string[]> {
  return readdir(join(directory, 'node_modules'));
}
