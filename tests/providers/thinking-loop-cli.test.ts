// Streamed runs with thinking through `stageloop run`, on real provider recordings replayed by a loopback server
// (sources in tests/fixtures/providers/*/README.md): a tool loop on the run's own calculator whose reasoning goes back on
// every later request, recorded, and `stageloop replay` runs it again from the recording alone (no request reaches the
// server) to the same state, answer and usage. The model's recorded name is what a replay's stages see (limits, prices).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { startRecordedServer, type RecordedReply } from '../support/recorded-server.js';
import { replyOf } from './corpus.js';

// What each test started: the loopback server and the store folder, closed and removed after it.
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface CliEvent {
  runId: string;
  type: string;
  data: Record<string, unknown>;
}
const eventsOf = (stdout: string): CliEvent[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CliEvent);
const runIdOf = (events: CliEvent[]) => events.find((event) => event.type === 'run_started')!.runId;

/** Runs the task with --events on these replies, then replays the recorded run with no model at all. */
async function runAndReplay(replies: RecordedReply[], env: (url: string) => Record<string, string>, argv: string[]) {
  const server = await startRecordedServer(replies);
  const home = mkdtempSync(join(tmpdir(), 'stageloop-thinking-'));
  cleanups.push(
    () => server.close(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  const run = await runCli(['run', '--events', ...argv], { STAGELOOP_HOME: home, ...env(server.url) });
  expect(run.code, run.stderr).toBe(0);
  const events = eventsOf(run.stdout);
  const asked = server.requests.length;
  const replay = await runCli(['replay', runIdOf(events), '--json'], { STAGELOOP_HOME: home });
  expect(replay.code, replay.stdout + replay.stderr).toBe(0);
  // Nothing reached the server: every model (and tool) call was served from the recording.
  expect(server.requests).toHaveLength(asked);
  const report = JSON.parse(replay.stdout) as { identical: boolean; result: Record<string, unknown> };
  return { events, report, bodies: server.requests.map((request) => request.body as Record<string, unknown>) };
}

/** The replayed run ends as the live run did: same answer, status, stop, iterations and usage. */
function expectSameEnd(events: CliEvent[], report: { identical: boolean; result: Record<string, unknown> }) {
  expect(report.identical).toBe(true);
  const finished = events.find((event) => event.type === 'run_finished')!.data;
  const { answer, status, usage, iterations } = report.result;
  expect({ answer, status, usage, iterations }).toEqual({
    answer: finished.answer,
    status: finished.status,
    usage: finished.usage,
    iterations: finished.iterations,
  });
}

const texts = (events: CliEvent[], type: string) =>
  events.filter((event) => event.type === type).map((event) => event.data.text as string);

describe('a tool loop with thinking through the CLI, recorded and replayed', { timeout: 180_000 }, () => {
  it('openai-responses, streamed: four steps, the run calls its calculator three times, the encrypted reasoning goes back each time', async () => {
    const file = 'vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt';
    const { events, report, bodies } = await runAndReplay(
      [0, 1, 2, 3].map((part) => replyOf('responses', { file, part })),
      (url) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: 'gpt-5' }),
      ['--provider', 'openai-responses', 'What is (12 + 7) * 3 * 10?'],
    );
    // The reasoning summary arrived word by word, and the calls went to the run's own calculator tool.
    expect(texts(events, 'reasoning_delta').length).toBeGreaterThan(20);
    expect(texts(events, 'reasoning_delta').join('')).toMatch(/^\*\*Calculating step-by-step using calculator\*\*/);
    const calls = events.filter((event) => event.type === 'tool_call').map((event) => event.data.name);
    expect(calls).toEqual(['calculator', 'calculator', 'calculator']);
    expect(events.filter((event) => event.type === 'tool_result')).toHaveLength(3);
    expect(events.find((event) => event.type === 'run_finished')!.data.answer).toBe('The final result is **570**.');
    expect(bodies).toHaveLength(4);
    for (const body of bodies.slice(1)) {
      const input = body.input as Array<Record<string, unknown>>;
      expect(body).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
      const reasoning = input.find((item) => item.type === 'reasoning')!;
      expect(String(reasoning.encrypted_content)).toMatch(/^gAAAAA/);
      // The reasoning item stays just before the call it led to, as the API wants it back.
      expect(input.indexOf(reasoning) + 1).toBe(input.findIndex((item) => item.type === 'function_call'));
    }
    expectSameEnd(events, report);
  });

  it('anthropic, streamed: the thinking arrives in pieces, recorded and replayed identically', async () => {
    const { events, report, bodies } = await runAndReplay(
      [replyOf('anthropic', { file: 'pydantic-ai/test_anthropic_model_thinking_part_stream.0.json' })],
      (url) => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: url, ANTHROPIC_MODEL: 'claude-sonnet-4-0' }),
      ['--provider', 'anthropic', 'How do I cross the street?'],
    );
    expect(bodies[0]).toMatchObject({ stream: true });
    expect(texts(events, 'reasoning_delta').length).toBeGreaterThan(3);
    expect(texts(events, 'reasoning_delta').join('')).toMatch(
      /^This is a straightforward question about pedestrian safety\. .* could help prevent accidents\.$/,
    );
    // The reply's event carries the reasoning too (shortened, as event texts are).
    expect(events.find((event) => event.type === 'model_reply')!.data.reasoning).toMatch(/^This is a straightforward/);
    expectSameEnd(events, report);
  });
});
