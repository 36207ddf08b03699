// `stageloop run --provider`: the native adapters as a user meets them, on real recordings replayed by a loopback
// server: a whole tool loop (the signed thinking / encrypted reasoning sent back), replay of the recording, streaming.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { startRecordedServer, type RecordedServer } from '../support/recorded-server.js';
import { replyOf } from './corpus.js';

let server: RecordedServer | undefined;
let home: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
});
const freshHome = () => (home = mkdtempSync(join(tmpdir(), 'stageloop-provider-')));
const runIdOf = (stderr: string) => /run ([0-9a-f]{32}) \(recorded in/.exec(stderr)?.[1];

describe('stageloop run --provider', { timeout: 120_000 }, () => {
  it('anthropic: a recorded thinking + tool_use reply, then the answer, recorded with its provider and replayed identically', async () => {
    const recorded = 'pydantic-ai/test_anthropic_tool_with_thinking';
    server = await startRecordedServer([
      replyOf('anthropic', { file: `${recorded}.0.json` }),
      replyOf('anthropic', { file: `${recorded}.1.json` }),
    ]);
    const env = { STAGELOOP_HOME: freshHome(), ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url };
    const run = await runCli(
      ['run', '--provider', 'anthropic', '--model', 'claude-test', 'Largest city of my country?'],
      env,
    );
    expect(run.stderr).toContain(`using model claude-test at 127.0.0.1:${new URL(server.url).port}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Mexico City/);
    // The recorded call names a tool this run does not have: the run answers it so and the model answers after.
    expect(server.requests).toHaveLength(2);
    const runId = runIdOf(run.stderr)!;
    const shown = await runCli(['runs', '--json'], env);
    expect(shown.code).toBe(0);
    const replay = await runCli(['replay', runId], { ...env, ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' });
    expect(replay.stdout).toMatch(/^identical: react on run [0-9a-f]{32} ends completed/);
    expect(server.requests).toHaveLength(2);
  });

  it('openai-responses: the encrypted reasoning item goes back, streamed events reach --events', async () => {
    const recorded = 'vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt';
    server = await startRecordedServer([
      replyOf('responses', { file: recorded, part: 0 }),
      replyOf('responses', { file: recorded, part: 3 }),
    ]);
    const env = {
      STAGELOOP_HOME: freshHome(),
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'gpt-5',
    };
    const run = await runCli(['run', '--provider', 'openai-responses', '--events', 'What is (12 + 7) * 3 * 10?'], env);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data?: Record<string, unknown> });
    expect(events.some((event) => event.type === 'reasoning_delta')).toBe(true);
    expect(events.some((event) => event.type === 'tool_call_delta')).toBe(true);
    const sent = server.requests[1]!.body as { input: Array<Record<string, unknown>>; store: boolean };
    expect(sent.store).toBe(false);
    const reasoning = sent.input.find((item) => item.type === 'reasoning')!;
    expect(String(reasoning.encrypted_content)).toMatch(/^gAAAAA/);
    expect(sent.input.indexOf(reasoning)).toBeLessThan(sent.input.findIndex((item) => item.type === 'function_call'));
  });

  it('names a provider no row has, and a provider without its key, in one line', async () => {
    const unknown = await runCli(['run', '--provider', 'claude', 'hi'], { STAGELOOP_HOME: freshHome() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'stageloop: --provider claude is not a provider: choose one of openai, openai-responses, anthropic, offline\n',
    );
    const noKey = await runCli(['run', 'hi'], { STAGELOOP_HOME: freshHome(), STAGELOOP_PROVIDER: 'anthropic' });
    expect(noKey.stderr.trim().split('\n')).toHaveLength(1);
    expect(noKey.stderr).toMatch(/^stageloop: ANTHROPIC_API_KEY is not set/);
  });
});
