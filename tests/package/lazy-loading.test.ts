// What a process pays for: the CLI and the main entry load the OpenAI SDK, the OTel SDK and mathjs only when used.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInSqlite } from '../../src/store/sqlite-driver.js';
import { cleanEnvironment, cliPath } from '../support/run-cli.js';

const recorder = fileURLToPath(new URL('./module-log.mjs', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
let directory: string;
let runs = 0;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'stageloop-modules-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

/** The packages (node_modules/NAME) a process loaded as ES modules, and whether it loaded any module at all of ours. */
async function packagesLoaded(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ packages: Set<string>; code: number; files: string[] }> {
  const logPath = join(directory, `modules-${++runs}.log`);
  const code = await new Promise<number>((resolve) => {
    execFile(
      process.execPath,
      ['--import', recorder, ...args],
      { cwd: repositoryRoot, env: cleanEnvironment({ MODULE_LOG: logPath, ...env }) },
      (error) => resolve(error ? Number(error.code ?? 1) : 0),
    );
  });
  const files = (await readFile(logPath, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const packages = new Set(files.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
  return { packages, code, files };
}

/**
 * The modules in the files a process loaded: a chunk of the CLI's bundle (dist/cli/) holds many, each under a
 * `// dist/...` or `// node_modules/...` line esbuild writes; any other file is the one module it is.
 */
async function modulesIn(files: readonly string[]): Promise<string[]> {
  const modules = await Promise.all(
    files.map(async (url) => {
      if (!url.includes('/dist/cli/')) return [url];
      const text = await readFile(fileURLToPath(url), 'utf8');
      return [...text.matchAll(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm)].map((match) => match[1]!);
    }),
  );
  return modules.flat();
}

const heavy = [
  'openai',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/client',
  'ajv',
  '@opentelemetry/sdk-node',
  '@opentelemetry/exporter-trace-otlp-http',
  'mathjs',
  'tsx',
  'typescript',
  'gpt-tokenizer',
  'better-sqlite3',
];

describe('lazy loading', () => {
  it('an offline run loads no OpenAI SDK, no OTel (not even the API), no mathjs in this process, no TS loader', async () => {
    const { packages, code, files } = await packagesLoaded([
      cliPath,
      'run',
      '-q',
      '--no-store',
      'What is 17 * 23 + 4?',
    ]);
    expect(code).toBe(0);
    expect(files.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    for (const name of [...heavy, '@opentelemetry/api']) expect(packages, name).not.toContain(name);
    // The bundle's chunks name what they hold: this run's include zod and the stages.
    const modules = await modulesIn(files);
    expect(modules.some((path) => path.startsWith('node_modules/zod/'))).toBe(true);
    expect(modules.some((path) => path.startsWith('dist/stages/'))).toBe(true);
  });

  it(`a recorded offline run (the default) adds SQLite (${builtInSqlite() ? "Node's node:sqlite, no package" : 'better-sqlite3'}) and nothing else heavy`, async () => {
    const { packages, code } = await packagesLoaded([cliPath, 'run', '-q', 'What is 17 * 23 + 4?']);
    expect(code).toBe(0);
    if (builtInSqlite() === null) expect(packages).toContain('better-sqlite3');
    else expect(packages).not.toContain('better-sqlite3');
    for (const name of [...heavy.filter((name) => name !== 'better-sqlite3'), '@opentelemetry/api'])
      expect(packages, name).not.toContain(name);
  });

  it('--help loads nothing but the flag parser: no zod, no stages', async () => {
    const { packages, code, files } = await packagesLoaded([cliPath, '--help']);
    expect(code).toBe(0);
    expect([...packages]).toEqual([]);
    expect(files.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    const modules = await modulesIn(files);
    expect(modules.filter((path) => path.includes('node_modules/zod/') || path.includes('dist/stages/'))).toEqual([]);
  });

  it('--trace console loads the OTel SDK, only then', async () => {
    const { packages, code } = await packagesLoaded([cliPath, 'run', '-q', '--trace', 'console', 'What is 2 + 2?']);
    expect(code).toBe(0);
    expect(packages).toContain('@opentelemetry/sdk-node');
    expect(packages).not.toContain('openai');
  });

  it("import 'stageloop' loads no OpenAI SDK, no MCP SDK, no OTel SDK or exporter, no mathjs and no TS loader", async () => {
    const { packages, code } = await packagesLoaded([
      '--input-type=module',
      '-e',
      "await import('stageloop'); await import('stageloop/stages'); await import('stageloop/pipelines')",
    ]);
    expect(code).toBe(0);
    expect(packages).toContain('zod');
    for (const name of heavy) expect(packages, name).not.toContain(name);
  });

  it("import 'stageloop' (the built dist/src/index.js) resolves no HTTP framework, Redis client, queue, MCP SDK or SQLite binding", async () => {
    const { packages, code, files } = await packagesLoaded(['--input-type=module', '-e', "await import('stageloop')"]);
    expect(code).toBe(0);
    expect(files.some((url) => url.endsWith('/dist/src/index.js'))).toBe(true);
    expect([...packages].filter((name) => optionalPart.test(name))).toEqual([]);
  });

  it('each capability entry loads its own optional packages and no other', async () => {
    const entries = {
      'stageloop/durable': [],
      'stageloop/workers': [],
      'stageloop/mcp': [],
      'stageloop/server': ['hono', '@hono/node-server'],
    };
    for (const [entry, expected] of Object.entries(entries)) {
      const { packages, code } = await packagesLoaded(['--input-type=module', '-e', `await import('${entry}')`]);
      expect(code, entry).toBe(0);
      expect([...packages].filter((name) => optionalPart.test(name)).sort(), entry).toEqual([...expected].sort());
    }
  });
});

/** The optional packages the main entry must not load: server, queue, Redis, MCP, SQLite, the OTel SDK. */
const optionalPart =
  /^(hono|@hono\/.*|ioredis|bullmq|@modelcontextprotocol\/.*|better-sqlite3|@opentelemetry\/(?!api$).*|@a2a-js\/.*|pg)$/;
