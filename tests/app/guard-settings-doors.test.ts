// One schema per setting, used at every door: the same guard settings sent through `stageloop run` flags, an eval
// variant's flags, the config file's evalVariants and POST /v1/runs are recorded as the same recipe guards.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordedRecipe } from '../../app/recipe.js';
import type { GuardSettings } from '../../src/engine/guard-settings.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { runCli } from '../support/run-cli.js';
import { jsonPost, useServes, waitForStatus } from '../server/serve-support.js';

const folder = mkdtempSync(join(tmpdir(), 'stageloop-guard-doors-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What a client of the server may set: no switch-off (0), no onRepeat or noGuards (not the client's to choose). */
const requestSettings = {
  maxTokens: 5000,
  maxCostUsd: 2,
  timeoutSeconds: 120,
  maxIterations: 6,
  injection: 'redact',
  loopLimit: 4,
  contextBudget: 4000,
  budgetMode: 'hard',
} satisfies GuardSettings;
/** Every guard setting. */
const everySetting = {
  ...requestSettings,
  onRepeat: 'refuse',
  noGuards: true,
  sessionMaxTokens: 50_000,
  sessionMaxCostUsd: 1,
} satisfies Required<GuardSettings>;

const flagsOf = (settings: GuardSettings): string[] => [
  ...(settings.maxTokens !== undefined ? ['--max-tokens', String(settings.maxTokens)] : []),
  ...(settings.maxCostUsd !== undefined ? ['--max-cost', String(settings.maxCostUsd)] : []),
  ...(settings.timeoutSeconds !== undefined ? ['--timeout', String(settings.timeoutSeconds)] : []),
  ...(settings.maxIterations !== undefined ? ['--max-iterations', String(settings.maxIterations)] : []),
  ...(settings.injection !== undefined ? ['--guard', `injection=${settings.injection}`] : []),
  ...(settings.loopLimit !== undefined ? ['--loop-limit', String(settings.loopLimit)] : []),
  ...(settings.onRepeat !== undefined ? ['--on-repeat', settings.onRepeat] : []),
  ...(settings.contextBudget !== undefined ? ['--context-budget', String(settings.contextBudget)] : []),
  ...(settings.budgetMode !== undefined ? ['--budget-mode', settings.budgetMode] : []),
  ...(settings.noGuards === true ? ['--no-guards'] : []),
  ...(settings.sessionMaxTokens !== undefined ? ['--session-max-tokens', String(settings.sessionMaxTokens)] : []),
  ...(settings.sessionMaxCostUsd !== undefined ? ['--session-max-cost', String(settings.sessionMaxCostUsd)] : []),
];

/** The guards of every run recorded in the store file. */
async function recordedGuards(storeFile: string): Promise<unknown[]> {
  const store = sqliteStore(storeFile);
  try {
    const runs = await store.list();
    return runs.map((run) => recordedRecipe(run)?.guards);
  } finally {
    await store.close();
  }
}

async function cliRun(settings: GuardSettings, name: string): Promise<unknown[]> {
  const storeFile = join(folder, `${name}.db`);
  const run = await runCli([
    'run',
    '--offline',
    '--json',
    '--store',
    storeFile,
    ...flagsOf(settings),
    // A session budget caps a session's turns: `run` takes it only with a session.
    ...(settings.sessionMaxTokens !== undefined ? ['--session', name] : []),
    'What is 2 + 2?',
  ]);
  expect(run.stderr).not.toMatch(/must be|needs/);
  return recordedGuards(storeFile);
}

async function evalRuns(args: string[], name: string): Promise<unknown[]> {
  const storeFile = join(folder, `${name}.db`);
  const dataset = join(folder, `${name}.jsonl`);
  writeFileSync(dataset, `${JSON.stringify({ id: 'sum', task: 'What is 2 + 2?', expected: 4 })}\n`);
  const run = await runCli(['eval', dataset, '--offline', '--json', '-q', '--store', storeFile, ...args], {
    STAGELOOP_HOME: folder,
  });
  expect(run.stderr).not.toMatch(/must be|needs/);
  return recordedGuards(storeFile);
}

describe('every guard setting, through every door, is recorded alike', { timeout: 120_000 }, () => {
  const serves = useServes();

  it('stageloop run flags, an eval variant and the config file record every setting the same', async () => {
    const fromFlags = await cliRun(everySetting, 'run-every');
    const fromVariant = await evalRuns(
      ['--variant', `every=react:${flagsOf(everySetting).join(' ')}`],
      'variant-every',
    );
    const config = join(folder, 'stageloop.config.json');
    writeFileSync(config, JSON.stringify({ evalVariants: { every: { pipeline: 'react', guards: everySetting } } }));
    const fromConfig = await evalRuns(['--config', config], 'config-every');
    expect(fromFlags).toEqual([everySetting]);
    expect(fromVariant).toEqual([everySetting]);
    expect(fromConfig).toEqual([everySetting]);
  });

  it('POST /v1/runs records what the CLI records for the settings a client may set', async () => {
    const serve = await serves.start();
    const response = await serve.call('/v1/runs', jsonPost({ task: 'What is 2 + 2?', options: requestSettings }));
    expect(response.status).toBe(201);
    const { runId } = (await response.json()) as { runId: string };
    await waitForStatus(serve, runId, ['completed', 'stopped', 'failed']);
    const fromRequest = await recordedGuards(serve.storeFile);
    const fromFlags = await cliRun(requestSettings, 'run-request');
    expect(fromRequest).toEqual([requestSettings]);
    expect(fromFlags).toEqual(fromRequest);
  });
});
