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
import { packInto, projectAt, repositoryRoot, type ConsumerProject } from './consumer-project.js';

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
  await run('npm', ['install', `./${tarball}`, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: directory,
    timeout: 300_000,
  });
  const lock = JSON.parse(await readFile(join(directory, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  installed = Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/'));
  project = projectAt(directory, files);
}, 320_000);
afterAll(() => project?.remove());

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
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
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

  it('the command runs offline with --no-store; a recorded run says which package to add, or --no-store', async () => {
    const unrecorded = await project.node([
      'node_modules/.bin/stageloop',
      'run',
      '-q',
      '--no-store',
      'What is 17 * 23 + 4?',
    ]);
    expect(unrecorded).toMatchObject({ code: 0, stderr: '' });
    expect(unrecorded.stdout).toContain('395');
    const recorded = await project.node(['node_modules/.bin/stageloop', 'run', '-q', 'What is 17 * 23 + 4?']);
    expect([recorded.code, recorded.stderr]).toEqual([
      2,
      `stageloop: a SQLite store needs the optional package better-sqlite3, not installed: run "npm install better-sqlite3@${optionalPackages['better-sqlite3']}" beside stageloop, or pass --no-store\n`,
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
      sqlite: {
        code: 'config',
        message: `a SQLite store needs the optional package better-sqlite3, not installed: ${install('better-sqlite3')}`,
      },
      mcp: {
        code: 'config',
        message: `stageloop/mcp needs the optional package @modelcontextprotocol/sdk, not installed: ${install('@modelcontextprotocol/sdk')}`,
      },
      workers: {
        code: 'config',
        message: `a Redis store needs the optional package ioredis, not installed: ${install('ioredis')}`,
      },
    });
    for (const { message } of Object.values(seen)) expect(message).not.toContain('\n');
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
