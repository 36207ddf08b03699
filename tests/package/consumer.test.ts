// The packed tarball as a new user gets it: installed into a fresh project with no TypeScript loader, imported from
// plain .mjs, run with stageloop/testing's ScriptedModel, type-checked by a strict nodenext consumer, the README's
// example run verbatim. Fails when the package needs a file the tarball lacks.
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import {
  installPackedPackage,
  installedPackages,
  repositoryRoot,
  strictConsumerOptions,
  typeCheckIn,
  type ConsumerProject,
} from './consumer-project.js';
import { docImports, typeCheckedImports } from './doc-imports.js';

let project: ConsumerProject;
beforeAll(async () => {
  project = await installPackedPackage();
}, 180_000);
afterAll(() => project?.remove());

const agentApp = `
import { runPipeline, defineTool, ToolRegistry, calculatorTool, outputOf } from 'stageloop';
import { instrumentDeps } from 'stageloop/tracing';
import * as stages from 'stageloop/stages';
import { reactPipeline, builtInPipelines } from 'stageloop/pipelines';
import { ScriptedModel, makeState, runStage } from 'stageloop/testing';
import * as otel from 'stageloop/otel';
import { applyGuards } from 'stageloop/app';
import { z } from 'zod';

const double = defineTool({ name: 'double', description: 'Doubles a number.', parameters: z.strictObject({ value: z.number() }), execute: ({ value }) => String(value * 2) });
const model = new ScriptedModel([
  { toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' }, { name: 'double', arguments: '{"value":21}' }] },
  (request) => ({ content: request.messages.filter((message) => message.role === 'tool').map((message) => message.content).join(' | ') }),
]);
const result = await runPipeline(reactPipeline(), { task: 'calculate' }, { deps: instrumentDeps({ model, tools: new ToolRegistry([calculatorTool(), double]) }) });
const state = makeState();
await runStage(stages.context(), state, { zone: 'setup' });
console.log(JSON.stringify({
  status: result.status, answer: result.answer, pipelines: Object.keys(builtInPipelines),
  stages: typeof stages.think, outputOf: [typeof outputOf, typeof stages.outputOf], otel: typeof otel.startTracing, app: typeof applyGuards, messages: state.messages.length,
}));
`;

const strictConsumer = `
import { definePipeline, runPipeline, breakLoop, type Stage, type RunResult } from 'stageloop';
import { think, budget, type ThinkOptions } from 'stageloop/stages';
import { reactPipeline, type ReactPipelineOptions } from 'stageloop/pipelines';
import { ScriptedModel, runStage, makeState, stageContext, type StageRun, type TestStageContext } from 'stageloop/testing';
import { startTracing, type TracingSession } from 'stageloop/otel';

declare module 'stageloop' {
  interface StageSlots { countdown: { remaining: number } }
}
const countdown: Stage = {
  name: 'countdown',
  execute(state) {
    const slot = (state.countdown ??= { remaining: 2 });
    slot.remaining -= 1;
    if (slot.remaining === 0) return breakLoop('counted down');
    return undefined;
  },
};
const options: ThinkOptions & ReactPipelineOptions = { maxTruncationRetries: 1 };
const pipeline = definePipeline({ name: 'demo', setup: [budget({ maxIterations: 3 }).start], iteration: [countdown, think(options)], maxIterations: 3 });
const result: Promise<RunResult> = runPipeline(reactPipeline(options), { task: 'x' }, { deps: { model: new ScriptedModel([]) } });
const run: Promise<StageRun> = runStage(countdown, makeState());
const context: TestStageContext = stageContext({ zone: 'finalize' });
const session: (mode: 'console') => TracingSession = (mode) => startTracing(mode);
export { pipeline, result, run, context, session };
`;

describe('the packed package in a fresh project', () => {
  it('ships what a user needs and nothing of the repository', () => {
    const files = project.tarballFiles;
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'bin/stageloop.js',
        'dist/app/cli/main.js',
        'dist/cli/main.js',
        'dist/cli/main.js.map',
        'dist/cli/calculator-worker.js',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/src/tools/calculator-worker.js',
        'dist/src/model/data/local-models.json',
      ]),
    );
    // The user docs and the licence ship too (--help points at them); no source, test or bench file does.
    expect(
      files.filter((file) => !/^(dist\/|bin\/|docs\/[\w/-]+\.md$|package\.json$|README\.md$|LICENSE$)/.test(file)),
    ).toEqual([]);
    expect(files.some((file) => file.endsWith('.tsbuildinfo') || file.startsWith('dist/tests'))).toBe(false);
  });

  it('installs no TypeScript loader or compiler', async () => {
    const packages = await installedPackages(project.directory);
    expect(packages).toContain('stageloop');
    for (const tool of ['tsx', 'typescript', 'esbuild', 'vitest']) expect(packages).not.toContain(tool);
  });

  it('imports every entry from plain .mjs and runs an agent with ScriptedModel and the real calculator', async () => {
    await writeFile(join(project.directory, 'agent.mjs'), agentApp);
    const output = await project.node(['agent.mjs']);
    expect(output.stderr).toBe('');
    expect(JSON.parse(output.stdout)).toEqual({
      status: 'completed',
      answer: 'Expression: 17 * 23 + 4\nResult: 395 | 42',
      pipelines: ['react', 'plan-execute-replan'],
      stages: 'function',
      outputOf: ['function', 'function'],
      otel: 'function',
      app: 'function',
      messages: 2,
    });
  }, 60_000);

  it('require() works where Node can load ES modules synchronously, and says to use import where it cannot', async () => {
    await writeFile(join(project.directory, 'require.cjs'), "console.log(typeof require('stageloop').runPipeline)");
    expect((await project.node(['require.cjs'])).stdout.trim()).toBe('function');
    const refused = await project.node(['--no-experimental-require-module', 'require.cjs']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/stageloop is an ES module only: use `import .* from 'stageloop'`/);
  });

  it('the installed command answers offline', async () => {
    const output = await project.node(['node_modules/.bin/stageloop', 'run', '--quiet', 'What is 17 * 23 + 4?']);
    expect(output).toMatchObject({ code: 0, stderr: '' });
    expect(output.stdout).toContain('395');
  }, 60_000);

  it('exports every name README.md and docs/*.md import, from the entry they import it from', async () => {
    const entries = await docImports(repositoryRoot);
    expect([...entries.keys()]).toEqual(
      expect.arrayContaining([
        'stageloop',
        'stageloop/durable',
        'stageloop/mcp',
        'stageloop/workers',
        'stageloop/eval',
        'stageloop/tracing',
      ]),
    );
    const wanted = Object.fromEntries([...entries].map(([entry, names]) => [entry, [...names.values]]));
    const check = `const wanted = ${JSON.stringify(wanted)};
const missing = [];
for (const [entry, names] of Object.entries(wanted)) {
  const module = await import(entry);
  for (const name of names) if (!(name in module)) missing.push(entry + ': ' + name);
}
console.log(JSON.stringify(missing));`;
    await writeFile(join(project.directory, 'doc-names.mjs'), check);
    const output = await project.node(['doc-names.mjs']);
    expect(output.stderr).toBe('');
    expect(JSON.parse(output.stdout)).toEqual([]);
  });

  it('type-checks a strict nodenext TypeScript consumer (and every name the docs import), declarations of dependencies included', async () => {
    await writeFile(join(project.directory, 'consumer.ts'), strictConsumer);
    await writeFile(join(project.directory, 'doc-names.ts'), typeCheckedImports(await docImports(repositoryRoot)));
    const compilerOptions = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      exactOptionalPropertyTypes: true,
      noPropertyAccessFromIndexSignature: true,
      noImplicitReturns: true,
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
    };
    await writeFile(
      join(project.directory, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['consumer.ts', 'doc-names.ts'] }),
    );
    const tsc = createRequire(join(repositoryRoot, 'package.json')).resolve('typescript/bin/tsc');
    // Checking every dependency's declarations takes 15 s on a quiet machine, far more under load.
    const output = await project.node([tsc, '-p', '.'], {}, 240_000);
    expect(output.stdout + output.stderr).toBe('');
    expect(output.code).toBe(0);
  }, 300_000);

  it('every entry type-checks for a strict consumer without Node types (types: [], skipLibCheck: false)', async () => {
    // No @types/node in the program: the published declarations use the global web types (ReadableStream, AbortSignal).
    const manifest = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(manifest.exports).filter((entry) => entry !== './package.json');
    const lines = entries.map((entry, index) => `export * as entry${index} from 'stageloop${entry.slice(1)}';`);
    await writeFile(join(project.directory, 'web-types-consumer.ts'), `${lines.join('\n')}\n`);
    const compilerOptions = { ...strictConsumerOptions, types: [] };
    const output = await typeCheckIn(
      project,
      'tsconfig.web-types.json',
      compilerOptions,
      ['web-types-consumer.ts'],
      600_000,
    );
    expect(output.stdout + output.stderr).toBe('');
    expect(output.code).toBe(0);
  }, 620_000);
});

describe('the README, run as written', () => {
  const loopback = useLoopbackServer();

  it('the library example on the first screen runs verbatim against an OpenAI-compatible server', async () => {
    const readme = await readFile(join(repositoryRoot, 'README.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(readme.indexOf(example!)).toBeLessThan(readme.indexOf('## The command line'));
    await writeFile(join(project.directory, 'readme-example.mjs'), example!);
    loopback.server.replyWithToolCalls([{ name: 'weather', arguments: '{"city":"Lisbon"}' }]);
    loopback.server.replyWith({ content: 'Yes: it is 21 °C in Lisbon.' });
    const output = await project.node(['readme-example.mjs'], {
      OPENAI_BASE_URL: loopback.server.url,
      OPENAI_MODEL: 'test-model',
    });
    expect(output.stderr).toBe('');
    expect(output.stdout.trim()).toBe('completed Yes: it is 21 °C in Lisbon.');
    const toolMessage = loopback.server.requests[1]!.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/Lisbon: 21 °C/);
    loopback.server.assertConsumed();
  }, 60_000);
});

describe('stageloop/otel preloaded into an app', () => {
  it("node --import stageloop/otel app.mjs exports the app's runs over OTLP", async () => {
    const receiver = await startOtlpReceiver();
    try {
      await writeFile(join(project.directory, 'agent.mjs'), agentApp);
      const output = await project.node(['--import', 'stageloop/otel', 'agent.mjs'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      });
      expect(output.code).toBe(0);
      const spans = await receiver.waitFor(
        (received) => received.some((span) => span.name === 'invoke_agent react'),
        10_000,
      );
      expect(spans.map((span) => span.name)).toEqual(
        expect.arrayContaining(['invoke_agent react', 'execute_tool calculator']),
      );
      // The installed dist/ finds its own package.json: the tracer is versioned, not 0.0.0.
      const { version } = JSON.parse(await readFile(join(repositoryRoot, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(new Set(spans.map((span) => span.scope.version))).toEqual(new Set([version]));
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
