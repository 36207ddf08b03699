// Fault matrix, the command line: limits reported with exit 3, one and two Ctrl-C, retry waits that do not keep the
// process alive, model failures as one line, hostile input. Real processes against a real server on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import type { ChatServer } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { PROMPTLY_MS } from '../support/helpers.js';
import { runCli, startCli, type CliRun } from '../support/run-cli.js';

const loopback = useLoopbackServer();
const env = (extra: Record<string, string> = {}) => ({
  OPENAI_BASE_URL: loopback.server.url,
  OPENAI_MODEL: 'test-model',
  ...extra,
});
const calc = (expression: string, id: string) => ({
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
  id,
});
const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

interface JsonOutput {
  status: string;
  answer: string | null;
  partial: boolean;
  stopReason: { kind: string; stage: string | null; message: string };
  usage: { inputTokens: number; outputTokens: number };
}

/** The CLI's --json object, checked the way every row checks a run. */
function checked(run: CliRun, code: number, status: string, kind: string | RegExp): JsonOutput {
  expect(run.code, run.stderr).toBe(code);
  const output = JSON.parse(run.stdout) as JsonOutput;
  expect(output.status).toBe(status);
  if (typeof kind === 'string') expect(output.stopReason.kind).toBe(kind);
  else expect(output.stopReason.kind).toMatch(kind);
  expect(output.partial).toBe(status !== 'completed');
  expect(typeof output.answer).toBe('string');
  expect(output.answer!.trim()).not.toBe('');
  return output;
}

async function timed(run: Promise<CliRun>): Promise<{ run: CliRun; elapsedMs: number }> {
  const started = Date.now();
  const finished = await run;
  return { run: finished, elapsedMs: Date.now() - started };
}

const keepsCalling = (server: ChatServer, turns: number, usage: { input: number; output: number }) => {
  for (let turn = 1; turn <= turns; turn++) server.replyWithToolCalls([calc(`${turn} + 1`, `c${turn}`)], { usage });
  server.replyWith({ content: 'Forced answer: 395.', usage });
};

describe('fault matrix: the command line', () => {
  it('--max-tokens: the forced answer is reported as stopped, budget_tokens, partial, exit 3', async () => {
    keepsCalling(loopback.server, 3, { input: 200, output: 20 });
    const { run } = await timed(runCli(['run', '--json', '--max-tokens', '500', 'What is 17 * 23 + 4?'], env()));
    const output = checked(run, 3, 'stopped', 'budget_tokens');
    expect(output.answer).toBe('Forced answer: 395.');
  });

  it('--max-iterations: the forced answer is reported as stopped, budget_iterations, exit 3', async () => {
    keepsCalling(loopback.server, 2, { input: 10, output: 5 });
    const { run } = await timed(runCli(['run', '--json', '--max-iterations', '3', 'What is 17 * 23 + 4?'], env()));
    expect(checked(run, 3, 'stopped', 'budget_iterations').answer).toBe('Forced answer: 395.');
  });

  it('--budget-mode hard --max-tokens stops before the crossing call, exit 3', async () => {
    keepsCalling(loopback.server, 4, { input: 200, output: 20 });
    const { run } = await timed(
      runCli(['run', '--json', '--max-tokens', '500', '--budget-mode', 'hard', 'What is 17 * 23 + 4?'], env()),
    );
    const output = checked(run, 3, 'stopped', 'budget_tokens');
    expect(output.usage.inputTokens + output.usage.outputTokens).toBeLessThanOrEqual(500);
  });

  it('--timeout against a silent server: an answer, partial, exit 3, promptly', async () => {
    loopback.server.hang(3);
    const { run, elapsedMs } = await timed(runCli(['run', '--json', '--timeout', '1', 'Take your time'], env()));
    expect(checked(run, 3, 'stopped', 'budget_time').answer).toMatch(/^I could not finish this task/);
    // The model's own timeout is 60 s; a process start on a loaded machine can take seconds.
    expect(elapsedMs).toBeLessThan(1_000 + 2 * PROMPTLY_MS);
  });

  it('--timeout during a 429 retry-after of 40 s: the wait is cancelled, exit 3 within seconds', async () => {
    loopback.server.fail(429, { headers: { 'retry-after': '40' }, times: 3 });
    const { run, elapsedMs } = await timed(runCli(['run', '--json', '--timeout', '1.5', 'hello'], env()));
    checked(run, 3, 'stopped', 'budget_time');
    expect(elapsedMs).toBeLessThan(1_500 + 2 * PROMPTLY_MS);
    expect(loopback.server.requests).toHaveLength(1);
  });

  it('Ctrl-C during a 429 retry-after of 40 s: exit 130 at once, nothing keeps the process alive', async () => {
    loopback.server.fail(429, { headers: { 'retry-after': '40' }, times: 3 });
    const cli = startCli(['run', '--json', 'hello'], env());
    // The 429 is sent in full: the CLI is in its retry-after wait.
    await loopback.server.answered(1);
    const interruptedAt = Date.now();
    cli.child.kill('SIGINT');
    const run = await cli.done;
    checked(run, 130, 'cancelled', 'cancelled');
    expect(Date.now() - interruptedAt).toBeLessThan(PROMPTLY_MS);
  });

  it('one Ctrl-C during a hanging model call: a partial summary from the state, exit 130', async () => {
    loopback.server.hang(2);
    const cli = startCli(['run', '--json', 'Take your time'], env());
    await loopback.server.received(1);
    const interruptedAt = Date.now();
    cli.child.kill('SIGINT');
    const run = await cli.done;
    const output = checked(run, 130, 'cancelled', 'cancelled');
    expect(output.stopReason.stage).toBe('think');
    expect(output.stopReason.message).toMatch(/cancelled with Ctrl-C/);
    expect(Date.now() - interruptedAt).toBeLessThan(PROMPTLY_MS);
    expect(loopback.server.requests).toHaveLength(1);
  });

  it('two Ctrl-C: the process quits at once with 130', async () => {
    loopback.server.hang(2);
    const hangingFinalize = startCli(['run', 'Take your time'], env());
    await loopback.server.received(1);
    const interruptedAt = Date.now();
    hangingFinalize.child.kill('SIGINT');
    hangingFinalize.child.kill('SIGINT');
    const run = await hangingFinalize.done;
    expect(run.code).toBe(130);
    expect(Date.now() - interruptedAt).toBeLessThan(PROMPTLY_MS);
  });

  it('a model that answers: exit 0', async () => {
    loopback.server.replyWith({ content: '395' });
    checked(await runCli(['run', '--json', 'What is 17 * 23 + 4?'], env()), 0, 'completed', 'completed');
  });

  it.each([
    ['401', (server: ChatServer) => server.fail(401, { message: 'bad key' }), /answered 401: bad key/],
    ['a closed port', () => undefined, /cannot reach/],
    ['a body that is not JSON', (server: ChatServer) => server.raw(200, '{"choices":'), /not valid JSON/],
  ])('a model failure (%s): exit 1, one error line, no stack trace, a partial answer', async (_name, arrange, line) => {
    arrange(loopback.server);
    const extra: Record<string, string> = _name === 'a closed port' ? { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } : {};
    const run = await runCli(['run', 'What is 17 * 23 + 4?'], env(extra));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(line);
    expect(run.stdout.trim()).toMatch(/^I could not finish this task/);
    noStackTrace(run.stderr);
  });

  it.each([
    [
      ['run', '--budget-mode', 'hard', '--max-iterations', '3', 'x'],
      /--budget-mode hard needs --max-tokens or --max-cost/,
    ],
    [
      ['run', '--budget-mode', 'strict', '--max-tokens', '3', 'x'],
      /--budget-mode must be "soft", "hard" or "ask", got "strict"/,
    ],
    [
      ['run', '--max-tokens', '1e400', 'x'],
      /--max-tokens must be a whole number of tokens \(0 turns the token budget off\)/,
    ],
    [['run', '--timeout', 'NaN', 'x'], /--timeout must be a number of seconds \(0 turns the time limit off\)/],
    [['run', '   '], /the task is empty/],
  ])('bad input %j: exit 2, one line', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    noStackTrace(run.stderr);
  });

  it.each([
    // argv cannot carry a NUL, and one argument is at most 128 KiB on Linux.
    ['a task with escape sequences', '17 * 23 + 4 \u001b[2J\u001b]0;title\u0007'],
    ['a 120 KB task', `What is 17 * 23 + 4? ${'padding '.repeat(15_000)}`],
  ])('%s (offline): the run ends with an exit code that says how, never a crash', async (_name, task) => {
    const run = await runCli(['run', '--json', '--offline', task]);
    expect([0, 1, 3]).toContain(run.code);
    const output = JSON.parse(run.stdout) as JsonOutput;
    expect(typeof output.answer).toBe('string');
    noStackTrace(run.stderr);
  });
});
