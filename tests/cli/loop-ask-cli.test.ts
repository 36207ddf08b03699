// `--on-repeat ask`: the repeated-call guard asks a person instead of refusing. With no one at the terminal the run
// pauses (exit 4) at the 3rd identical failing call; approve in a new process runs it once more, reject gives the
// model the person's message; replay is identical. A real model server on loopback, real processes, SQLite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';

const loopback = useLoopbackServer();
let folder = '';
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-loop-ask-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const env = { OPENAI_API_KEY: 'sk-test' };
const failing = (id: string) => ({ id, name: 'calculator', arguments: '{"expression":"17 / / 23"}' });
const common = () => ['--base-url', loopback.server.url, '--model', 'test-model', '--store', join(folder, 'runs.db')];

async function pausedRun() {
  loopback.server
    .replyWithToolCalls([failing('c1')])
    .replyWithToolCalls([failing('c2')])
    .replyWithToolCalls([failing('c3')]);
  const paused = await runCli(['run', ...common(), '--json', '--on-repeat', 'ask', 'What is 17 / 23?'], env);
  expect(paused.stderr).toMatch(/is waiting for approval of 1 tool call/);
  expect(paused.code).toBe(4);
  return JSON.parse(paused.stdout) as {
    runId: string;
    status: string;
    pending: Array<{ id: string; kind: string; tool: string; reason: string }>;
  };
}

describe('--on-repeat ask', () => {
  it('observe-plan-act "Repeated Tool Failure", fallback "request HITL approval": pauses at the 3rd identical failing call (exit 4), asking as an approval; approve runs it once more; replay identical', async () => {
    const paused = await pausedRun();
    expect(paused.status).toBe('interrupted');
    expect(paused.pending).toEqual([
      expect.objectContaining({
        id: 'c3',
        kind: 'tool_approval',
        tool: 'calculator',
        reason: expect.stringMatching(/repeated, identical call to calculator that already failed 2 times in a row/),
      }),
    ]);
    loopback.server.replyWith({ content: 'It fails every time: 17 / 23 is about 0.739.' });
    const approved = await runCli(['approve', paused.runId, '--store', join(folder, 'runs.db'), '--json'], env);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      status: 'completed',
      answer: 'It fails every time: 17 / 23 is about 0.739.',
    });
    // The approved call ran: the model's last request has its (failed) result, not a refusal.
    const lastMessages = loopback.server.requests.at(-1)!.body.messages as Array<{
      role: string;
      content: string;
      tool_call_id?: string;
    }>;
    const result = lastMessages.find((message) => message.role === 'tool' && message.tool_call_id === 'c3');
    expect(result?.content).not.toMatch(/Not run/);
    const replay = await runCli(['replay', paused.runId, '--store', join(folder, 'runs.db')], env);
    expect(replay.stdout).toMatch(/^identical/);
  });

  it('reject gives the model the message; asking for the same call again ends the run with loop_detected', async () => {
    const paused = await pausedRun();
    loopback.server.replyWithToolCalls([failing('c4')]).replyWith({ content: 'Stopped.' });
    const rejected = await runCli(
      ['reject', paused.runId, 'c3', '--store', join(folder, 'runs.db'), '--message', 'write it as 17 / 23', '--json'],
      env,
    );
    const outcome = JSON.parse(rejected.stdout) as { status: string; stopReason: { kind: string } };
    expect(outcome).toMatchObject({ status: 'stopped', stopReason: { kind: 'loop_detected' } });
    const refusal = (
      loopback.server.requests[3]!.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>
    ).find((message) => message.tool_call_id === 'c3');
    expect(refusal?.content).toMatch(/rejected this call: write it as 17 \/ 23/);
  });

  it('is a one-line usage error with a wrong value or beside --loop-limit 0', async () => {
    const wrong = await runCli(['run', ...common(), '--on-repeat', 'maybe', 'x'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim()).toMatch(/^stageloop: --on-repeat must be "refuse" or "ask", got "maybe"$/);
    const off = await runCli(['run', ...common(), '--on-repeat', 'ask', '--loop-limit', '0', 'x'], env);
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/--on-repeat needs the repeated-call guard, but --loop-limit 0 turns it off/);
  });
});
