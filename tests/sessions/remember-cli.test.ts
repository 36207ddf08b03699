// No fact lost: what the model stores with `remember` is in `stageloop facts list` after the turn, whatever the
// pipeline, the plan step or the number of calls after it, for any value the fact store allows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatServer } from '../support/chat-server.js';
import { runCli } from '../support/run-cli.js';
import { startScriptModel } from './remember-script.js';

let home = '';
let model: ChatServer;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'stageloop-remember-'));
  model = await startScriptModel();
});
afterAll(async () => {
  await model.close();
  rmSync(home, { recursive: true, force: true });
});

const env = () => ({ STAGELOOP_HOME: home, OPENAI_API_KEY: 'sk-test' });
const turn = (session: string, task: string, flags: string[] = []) =>
  runCli(
    ['run', '--json', '--base-url', model.url, '--model', 'test-model', '--session', session, ...flags, task],
    env(),
  );
async function facts(session: string): Promise<Record<string, string>> {
  const listed = await runCli(['facts', 'list', '--session', session, '--json'], env());
  expect(listed.code, listed.stderr).toBe(0);
  const rows = JSON.parse(listed.stdout) as Array<{ key: string; value: string }>;
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}
const plan = ['--pipeline', 'plan-execute-replan'];

describe('remember keeps the fact when the call runs', () => {
  it('in plan-execute-replan with its default parallel steps', async () => {
    const run = await turn('plan-parallel', 'plan: a[do: remember unit=cm] b[do: calc 2 + 2]', plan);
    expect(run.code, run.stderr).toBe(0);
    expect(await facts('plan-parallel')).toEqual({ unit: 'cm' });
  });

  it('in an earlier plan step than the last', async () => {
    const run = await turn('plan-earlier', 'plan-seq: a[do: remember city=Lisbon] b[do: calc 3 + 3]', plan);
    expect(run.code, run.stderr).toBe(0);
    expect(await facts('plan-earlier')).toEqual({ city: 'Lisbon' });
  });

  it('followed by 8 more tool calls', async () => {
    const calls = Array.from({ length: 8 }, (_, index) => `calc ${index} + 1`).join('; ');
    const run = await turn('many-calls', `do: remember colour=blue; ${calls}`);
    expect(run.code, run.stderr).toBe(0);
    expect(await facts('many-calls')).toEqual({ colour: 'blue' });
  });

  it('with a value of 1,900 characters', async () => {
    const value = `${'long value '.repeat(172)}end`.slice(0, 1_900);
    const run = await turn('long-value', `do: remember notes=${value}`);
    expect(run.code, run.stderr).toBe(0);
    expect((await facts('long-value')).notes).toBe(value);
  });

  it('refuses a value longer than the store allows with a message the model reads', async () => {
    const before = model.requests.length;
    const run = await turn('too-long', `do: remember notes=${'x'.repeat(2_001)}`);
    expect(run.code, run.stderr).toBe(0);
    expect(await facts('too-long')).toEqual({});
    const toolMessages = model.requests
      .slice(before)
      .flatMap((request) => request.body.messages.filter((message) => message.role === 'tool'));
    expect(String(toolMessages[0]?.content)).toMatch(/2000|2,000/);
  });
});
