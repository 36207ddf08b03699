// The run recipe round trip: every field a run is made with is recorded, read back and assembled into the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assemble, pipelineOf } from '../../app/assemble.js';
import { makeRecipe, recordedRecipe, recordOf, runRecipeSchema, type RunRecipe } from '../../app/recipe.js';
import { codeOf } from '../../src/common/stageloop-error.js';
import { stageNames } from '../../src/engine/pipeline.js';
import type { RunSummary } from '../../src/store/types.js';

const folder = mkdtempSync(join(tmpdir(), 'stageloop-recipe-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A stored run as the store gives it back: only its header fields matter here. */
const storedRun = (options: Record<string, unknown>, input: Record<string, unknown> = { task: 'x' }): RunSummary =>
  ({
    runId: 'run-1',
    pipeline: 'react',
    fingerprint: 'f',
    version: '0',
    input,
    options,
    createdAt: 1,
  }) as unknown as RunSummary;

const everyField: RunRecipe = makeRecipe({
  pipeline: 'react',
  model: {
    provider: 'openai',
    offline: false,
    name: 'test-model',
    baseUrl: 'http://127.0.0.1:9/v1',
    fallbacks: ['backup-model'],
    fallbackServers: [{ model: 'far-model', baseUrl: 'http://127.0.0.1:9/v2', apiKey: '${FAR_KEY}' }],
  },
  guards: {
    maxTokens: 5000,
    maxCostUsd: 1,
    timeoutSeconds: 30,
    maxIterations: 4,
    injection: 'redact',
    loopLimit: 3,
    contextBudget: 9000,
    budgetMode: 'hard',
  },
  approvals: { tools: ['calculator'], askOnLimit: true, taintPolicy: 'refuse' },
  maxParallelSteps: 2,
  outputSchema: { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] },
  session: { name: 's1', user: 'ada' },
  mcpServers: [{ name: 'files', command: 'node', args: ['server.js'], env: { TOKEN: '${FILES_TOKEN}' } }],
  tools: { webSearch: true, only: ['calculator', 'web_search'] },
  instructions: 'Answer in one line.',
  agents: {
    helper: {
      description: 'Helps.',
      pipeline: 'react',
      model: 'small-model',
      instructions: 'Help.',
      tools: ['calculator'],
      agents: [],
    },
  },
  agent: 'helper',
  workspace: {
    files: [{ path: 'AGENTS.md', text: 'Rules.', origin: 'project' }],
    skills: [
      {
        name: 'vat-rates',
        description: 'VAT.',
        body: 'Rate 20.',
        folder: '/x/vat-rates',
        files: [],
        origin: 'project',
      },
    ],
  },
  tracing: { exporter: 'console', content: true },
});
/** The same with a team: assembled below without one, so the agent fields are only in the round trip. */
const everyFieldWithTeam: RunRecipe = makeRecipe({
  ...everyField,
  agents: {
    helper: { description: 'Does sums.', pipeline: 'react', instructions: 'Add.', tools: ['calculator'], agents: [] },
  },
  agent: 'helper',
});

describe('RunRecipe', () => {
  it('every field survives record -> load (through JSON, as a store keeps it)', () => {
    const stored = JSON.parse(JSON.stringify(recordOf(everyFieldWithTeam))) as Record<string, unknown>;
    expect(recordedRecipe(storedRun(stored))).toEqual(everyFieldWithTeam);
    // Every top-level field of the schema is set in the sample, so a new field without a round trip fails here.
    expect(Object.keys(everyFieldWithTeam).sort()).toEqual(Object.keys(runRecipeSchema.shape).sort());
  });

  it('assembles what it says: session stages, output schema, guards, approval, tools and the resolved model', async () => {
    // (An --agent run is assembled as its agent: tests/cli/agents-cli.test.ts.)
    const { agent: _agent, ...withoutAgent } = everyField;
    const recipe = makeRecipe({
      ...withoutAgent,
      mcpServers: [],
      model: { name: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:9/v1', fallbacks: ['backup-model'] },
    });
    const env = { SERPAPI_API_KEY: 'serp-test', STAGELOOP_HOME: folder };
    const run = await assemble(recipe, env);
    try {
      const names = stageNames(run.pipeline);
      for (const stage of ['history', 'memory', 'budget', 'prune', 'loop-guard', 'injection-guard', 'approval'])
        expect(names).toContain(stage);
      expect(run.deps.tools.names).toEqual(expect.arrayContaining(['calculator', 'web_search', 'remember']));
      expect(run.deps.sessions).toBeDefined();
      expect(run.offline).toBe(false);
      expect(run.notice).toContain('falling back to backup-model');
      // What the environment decided is recorded, so resume and replay rebuild the same run.
      const again = recordedRecipe(storedRun(JSON.parse(JSON.stringify(run.record)) as Record<string, unknown>))!;
      expect(again).toEqual({
        ...recipe,
        model: { ...recipe.model, offline: false, provider: 'openai' },
        tools: { ...recipe.tools, webSearch: true },
      });
      expect(stageNames(pipelineOf(again, 'gpt-4o-mini'))).toEqual(names);
    } finally {
      await run.close();
    }
  });

  it('never records a secret, and a missing one is a config error naming the variable', async () => {
    const text = JSON.stringify(recordOf(everyField));
    expect(text).not.toMatch(/serp-test|sk-/);
    const missing = await assemble(everyField, { STAGELOOP_HOME: folder, SERPAPI_API_KEY: 'serp-test' }).catch(
      (error: unknown) => error,
    );
    expect(codeOf(missing)).toBe('config');
    expect((missing as Error).message).toMatch(/FAR_KEY/);
    const noKey = await assemble(makeRecipe({ model: { offline: false } }), {}).catch((error: unknown) => error);
    expect(codeOf(noKey)).toBe('config');
    expect((noKey as Error).message).toMatch(/^OPENAI_API_KEY is not set/);
    const noSearch = await assemble(makeRecipe({ tools: { webSearch: true } }), {}).catch((error: unknown) => error);
    expect((noSearch as Error).message).toMatch(/^SERPAPI_API_KEY is not set/);
  });

  it('reads the recorded recipe only (nothing older was released); refuses what it cannot read', () => {
    expect(recordedRecipe(storedRun({}))).toBeUndefined();
    expect(recordedRecipe(storedRun({ recipe: { pipeline: 'react' } }))).toMatchObject({
      pipeline: 'react',
      guardDefaults: true,
    });
    expect(() => recordedRecipe(storedRun({ recipe: { version: 99 } }))).toThrow(/newer stageloop \(recipe version 99/);
    expect(() => recordedRecipe(storedRun({ recipe: { pipeline: 7 } }))).toThrow(/recorded recipe: pipeline: /);
  });
});
