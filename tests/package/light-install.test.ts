// The light install: `npm install` of the packed tarball into a fresh app, npm left to resolve it (no lock of ours), with
// install scripts off (pnpm's default). The optional parts are not installed; the engine runs an agent offline with
// its own dependencies, and each optional part, when used, is one line naming the package to add.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionalPackages } from '../../src/common/optional-package.js';
import { builtInSqlite } from '../../src/store/sqlite-driver.js';
import {
  packInto,
  projectAt,
  repositoryRoot,
  strictConsumerOptions,
  type ConsumerProject,
} from './consumer-project.js';

const run = promisify(execFile);
let project: ConsumerProject;
let installed: string[];
beforeAll(async () => {
  const directory = await mkdtemp(join(tmpdir(), 'stageloop-light-'));
  const { tarball, files } = await packInto(directory);
  await writeFile(
    join(directory, 'package.json'),
    JSON.stringify({ name: 'light-app', version: '1.0.0', private: true, type: 'module' }),
  );
  // --prefer-offline: the versions are pinned, so npm's cache (filled by this repository's install) answers most of it.
  // As the README says: the tarball and zod, nothing else.
  await run(
    'npm',
    ['install', `./${tarball}`, 'zod', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
    {
      cwd: directory,
      timeout: 300_000,
    },
  );
  const lock = JSON.parse(await readFile(join(directory, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  installed = Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/'));
  project = projectAt(directory, files);
}, 320_000);
afterAll(() => project?.remove());

const sqliteFeature = `a SQLite store on Node ${process.version} (22.13 and newer have SQLite built in)`;

const agent = `
import { runPipeline, ToolRegistry, calculatorTool, OfflineModel } from 'stageloop';
import { reactPipeline } from 'stageloop/pipelines';
const result = await runPipeline(reactPipeline(), { task: 'What is 17 * 23 + 4?' }, { deps: { model: new OfflineModel(), tools: new ToolRegistry([calculatorTool()]) } });
console.log(JSON.stringify({ status: result.status, answer: result.answer }));
`;

describe('the light install', () => {
  it('installs the engine and its own dependencies only: no optional part, a small fraction of the full install', () => {
    expect(installed).toContain('node_modules/stageloop');
    const names = installed.map((path) => path.replace(/^.*node_modules\//, ''));
    for (const name of Object.keys(optionalPackages)) expect(names, name).not.toContain(name);
    // 16 here (stageloop, zod, openai, mathjs and its 9, ky, gpt-tokenizer, the OTel API); the full install is ~230.
    expect(installed.length).toBeLessThanOrEqual(25);
  });

  it("runs an agent offline with the real calculator, the engine's dependencies only", async () => {
    await writeFile(join(project.directory, 'agent.mjs'), agent);
    const output = await project.node(['agent.mjs']);
    expect(output.stderr).toBe('');
    expect(JSON.parse(output.stdout)).toMatchObject({ status: 'completed' });
    expect(JSON.parse(output.stdout).answer).toContain('395');
  }, 60_000);

  it('a strict TypeScript consumer of the engine entries type-checks without the optional packages', async () => {
    const consumer = `import { runPipeline, OfflineModel, ToolRegistry, calculatorTool, memoryStore, type RunResult } from 'stageloop';
import { think } from 'stageloop/stages';
import { reactPipeline } from 'stageloop/pipelines';
import { ScriptedModel } from 'stageloop/testing';
const result: Promise<RunResult> = runPipeline(reactPipeline(), { task: 'x' }, { store: memoryStore(), deps: { model: new OfflineModel(), tools: new ToolRegistry([calculatorTool()]) } });
export { result, think, ScriptedModel };
`;
    await writeFile(join(project.directory, 'consumer.ts'), consumer);
    // @types/node from this repository: the app itself installs nothing for the check.
    const compilerOptions = {
      ...strictConsumerOptions,
      types: ['node'],
      typeRoots: [join(repositoryRoot, 'node_modules/@types')],
    };
    await writeFile(
      join(project.directory, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['consumer.ts'] }),
    );
    const tsc = createRequire(join(repositoryRoot, 'package.json')).resolve('typescript/bin/tsc');
    const output = await project.node([tsc, '-p', '.'], {}, 240_000);
    expect(output.stdout + output.stderr).toBe('');
    expect(output.code).toBe(0);
  }, 300_000);

  it(`the first command prints 395 and ${builtInSqlite() ? 'is recorded in node:sqlite: stageloop runs lists it' : 'says in one line how to record it'} (Node ${process.version})`, async () => {
    const first = await project.node(['node_modules/.bin/stageloop', 'run', 'What is 17 * 23 + 4?']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('395');
    const runs = await project.node(['node_modules/.bin/stageloop', 'runs']);
    if (builtInSqlite() !== null) {
      expect(first.stderr).toMatch(/\(recorded in .*\.stageloop\/stageloop\.db;/);
      const runId = /run (\S+) \(recorded in/.exec(first.stderr)![1]!;
      expect(runs).toMatchObject({ code: 0, stderr: '' });
      expect(runs.stdout).toContain(runId);
      expect(runs.stdout).toContain('completed');
    } else {
      const lines = first.stderr.split('\n').filter((line) => line.startsWith('runs are not recorded'));
      expect(lines).toEqual([
        `runs are not recorded: Node ${process.version} has no built-in SQLite; to record them use Node 22.13 or newer, or run "npm install better-sqlite3@${optionalPackages['better-sqlite3']}" beside stageloop (--no-store hides this line)`,
      ]);
      expect(runs.code).toBe(2);
      expect(runs.stderr.trim().split('\n')).toHaveLength(1);
    }
    const unrecorded = await project.node(['node_modules/.bin/stageloop', 'run', '--no-store', 'What is 2 + 3?']);
    expect(unrecorded.stderr).not.toContain('runs are not recorded');
  }, 120_000);

  it('--help and error hints name docs that are in the installed package', async () => {
    const help = await project.node(['node_modules/.bin/stageloop', '--help']);
    const docs = join(project.directory, 'node_modules/stageloop/docs');
    expect(help.stdout).toContain(`Docs: ${docs}`);
    const named = [...help.stdout.matchAll(/(\/\S+\.md)\b/g)].map((match) => match[1]!);
    expect(named).toContain(join(docs, 'approvals.md'));
    for (const path of named) await expect(readFile(path, 'utf8')).resolves.toContain('#');
    const hint = await project.node(['node_modules/.bin/stageloop', 'eval']);
    expect(hint.stderr).toContain(`see ${join(docs, 'eval.md')})`);
  });

  it('the command runs offline with --no-store; a store named on Node 20 says which package to add, or --no-store', async () => {
    const unrecorded = await project.node([
      'node_modules/.bin/stageloop',
      'run',
      '-q',
      '--no-store',
      'What is 17 * 23 + 4?',
    ]);
    expect(unrecorded).toMatchObject({ code: 0, stderr: '' });
    expect(unrecorded.stdout).toContain('395');
    const recorded = await project.node([
      'node_modules/.bin/stageloop',
      'run',
      '-q',
      '--store',
      'runs.db',
      'What is 17 * 23 + 4?',
    ]);
    if (builtInSqlite() !== null) expect([recorded.code, recorded.stderr]).toEqual([0, '']);
    else
      expect([recorded.code, recorded.stderr]).toEqual([
        2,
        `stageloop: ${sqliteFeature} needs the optional package better-sqlite3, not installed: run "npm install better-sqlite3@${optionalPackages['better-sqlite3']}" beside stageloop, or pass --no-store\n`,
      ]);
  }, 60_000);

  it('each optional part, used without its packages, is one line naming them (exit 2 from the command)', async () => {
    const serve = await project.node(['node_modules/.bin/stageloop', 'serve', '--store', 'runs.db']);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/^(stageloop: a SQLite store|stageloop serve) needs the optional package/);
    expect(serve.stderr.trim().split('\n')).toHaveLength(1);
    const traced = await project.node([
      'node_modules/.bin/stageloop',
      'run',
      '-q',
      '--no-store',
      '--trace',
      'console',
      'What is 2 + 2?',
    ]);
    expect([traced.code, traced.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(traced.stderr).toContain('npm install @opentelemetry/sdk-node@');
    const probes = `
const attempts = {
  server: () => import('stageloop/server'),
  otel: () => import('stageloop/otel'),
  sqlite: async () => (await import('stageloop/durable')).sqliteStore('runs.db'),
  mcp: async () => (await import('stageloop/mcp')).loadMcpTools([{ name: 'files', command: 'node', args: ['-e', '0'] }]),
  workers: async () => (await import('stageloop/workers')).checkRedisReachable('redis://127.0.0.1:1'),
};
const seen = {};
for (const [part, attempt] of Object.entries(attempts)) {
  try { await attempt(); seen[part] = 'no error'; } catch (error) { seen[part] = { code: error.code, message: error.message }; }
}
console.log(JSON.stringify(seen));`;
    await writeFile(join(project.directory, 'probes.mjs'), probes);
    const output = await project.node(['probes.mjs']);
    expect(output.stderr).toBe('');
    const seen = JSON.parse(output.stdout) as Record<string, { code: string; message: string }>;
    const install = (...names: Array<keyof typeof optionalPackages>) =>
      `run "npm install ${names.map((name) => `${name}@${optionalPackages[name]}`).join(' ')}" beside stageloop`;
    expect(seen).toEqual({
      server: {
        code: 'config',
        message: `stageloop/server needs the optional packages hono and @hono/node-server, not installed: ${install('hono', '@hono/node-server')}`,
      },
      otel: {
        code: 'config',
        message: expect.stringMatching(
          /^tracing \(stageloop\/otel, --trace\) needs the optional packages @opentelemetry\/sdk-node, /,
        ),
      },
      sqlite:
        builtInSqlite() !== null
          ? 'no error'
          : {
              code: 'config',
              message: `${sqliteFeature} needs the optional package better-sqlite3, not installed: ${install('better-sqlite3')}`,
            },
      mcp: {
        code: 'config',
        message: `stageloop/mcp needs the optional package @modelcontextprotocol/client, not installed: ${install('@modelcontextprotocol/client')}`,
      },
      workers: {
        code: 'config',
        message: `a Redis store needs the optional package ioredis, not installed: ${install('ioredis')}`,
      },
    });
    for (const outcome of Object.values(seen)) expect(String(outcome.message)).not.toContain('\n');
  }, 60_000);
});

describe('the optional packages', () => {
  it('are the peer dependencies, all optional, at the versions the errors suggest, and dev dependencies for this repository', async () => {
    const manifest = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    const peers = manifest.peerDependencies!;
    expect(Object.keys(peers).sort()).toEqual(Object.keys(optionalPackages).sort());
    for (const [name, version] of Object.entries(optionalPackages)) {
      expect(manifest.peerDependenciesMeta![name], name).toEqual({ optional: true });
      expect(String(peers[name]).replace(/^\^/, ''), name).toMatch(new RegExp(`^${version.replace(/\./g, '\\.')}`));
      expect(manifest.devDependencies![name], name).toBeDefined();
      expect(manifest.dependencies![name], name).toBeUndefined();
    }
  });

  it("are each named in the README's install section with the version to add", async () => {
    const readme = await readFile(join(repositoryRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Installing'), readme.indexOf('## The command line'));
    for (const [name, version] of Object.entries(optionalPackages))
      expect(section, name).toContain(`${name}@${version}`);
  });
});
