import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';
import { underTerminal } from '../support/terminal-cli.js';

const loopback = useLoopbackServer();
let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-approvals-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const calculatorCall = (id = 'call_1') => ({ id, name: 'calculator', arguments: '{"expression":"2 + 3"}' });
const model = () => ['--base-url', loopback.server.url, '--model', 'test-model'];
const store = () => ['--store', join(folder, 'runs.db')];
const toolMessages = () =>
  (loopback.server.lastBody?.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => message.content);

async function pausedRun(): Promise<string> {
  loopback.server.replyWithToolCalls([calculatorCall()]).replyWith({ content: 'it is 5' });
  const paused = await runCli([
    'run',
    ...model(),
    ...store(),
    '--approve-tools',
    'calculator',
    '--json',
    'add 2 and 3',
  ]);
  expect(paused.code).toBe(4);
  const output = JSON.parse(paused.stdout) as { runId: string; status: string; pending: unknown[] };
  expect(output).toMatchObject({
    status: 'interrupted',
    pending: [{ id: 'call_1', kind: 'tool_approval', tool: 'calculator' }],
  });
  expect(paused.stderr).toContain(`continue with: ./bin/stageloop.js approve ${output.runId}`);
  expect(loopback.server.requests).toHaveLength(1);
  return output.runId;
}

async function storedRun(runId: string) {
  const opened = sqliteStore(join(folder, 'runs.db'));
  try {
    return { run: await opened.get(runId), journal: await opened.journal(runId) };
  } finally {
    await opened.close();
  }
}

describe('stageloop approve / reject in a new process', () => {
  it('approve: the real calculator runs once and the run completes', async () => {
    const runId = await pausedRun();
    const approved = await runCli(['approve', runId, ...store(), '--quiet']);
    expect(approved.stderr).toBe('');
    expect(approved).toMatchObject({ code: 0, stdout: 'it is 5\n' });
    expect(toolMessages()).toEqual(['Expression: 2 + 3\nResult: 5']);
    expect(loopback.server.requests).toHaveLength(2);
  });

  it("reject: the model reads the person's message; the calculator never ran", async () => {
    const runId = await pausedRun();
    const rejected = await runCli([
      'reject',
      runId,
      'call_1',
      '--message',
      'use mental arithmetic',
      ...store(),
      '--quiet',
    ]);
    expect(rejected.code).toBe(0);
    expect(toolMessages()[0]).toContain('rejected this call: use mental arithmetic');
  });

  it('edit: --arguments runs the call with the new arguments', async () => {
    const runId = await pausedRun();
    const edited = await runCli([
      'approve',
      runId,
      'call_1',
      '--arguments',
      '{"expression":"40 + 2"}',
      ...store(),
      '--quiet',
    ]);
    expect(edited.code).toBe(0);
    expect(toolMessages()).toEqual(['Expression: 40 + 2\nResult: 42']);
  });

  it('bad input: one line, exit 2, the stored run unchanged', { timeout: 90_000 }, async () => {
    const runId = await pausedRun();
    const before = await storedRun(runId);
    const badFile = join(folder, 'decisions.json');
    writeFileSync(badFile, '{"call_1": {"approve": tru');
    const cases: Array<[string[], RegExp]> = [
      [['approve', runId, 'call_7'], /has no pending call call_7: it waits for call_1/],
      [['approve', runId, '--decisions', badFile], /the decision file .* cannot be read as JSON/],
      [['approve', runId, 'call_1', '--arguments', '{not json'], /--arguments must be JSON/],
      [['approve', runId, 'call_1', 'call_1'], /a call id is given twice/],
      [['approve', 'no-such-run'], /no run with id no-such-run/],
      [['approve', runId, '--colour'], /--colour is not an option of this command/],
    ];
    for (const [args, message] of cases) {
      const failed = await runCli([...args, ...store()]);
      expect(failed.code, args.join(' ')).toBe(2);
      expect(failed.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(failed.stderr).toMatch(message);
    }
    expect(await storedRun(runId)).toEqual(before);
    expect((await runCli(['approve', runId, ...store(), '--quiet'])).code).toBe(0);
    const done = await storedRun(runId);
    const again = await runCli(['approve', runId, 'call_1', ...store()]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(new RegExp(`run ${runId} is not waiting for a decision \\(it is completed\\)`));
    expect(await storedRun(runId)).toEqual(done);
  });
});

describe('live decisions at a terminal', () => {
  it('approves a call at the prompt, then extends a spent token budget by a stated amount', async () => {
    // 15 tokens a reply: the 20-token budget is spent after two turns.
    loopback.server
      .replyWithToolCalls([calculatorCall()])
      .replyWithToolCalls([calculatorCall('call_2')])
      .replyWithToolCalls([calculatorCall('call_3')])
      .replyWith({ content: 'all done' });
    const run = await underTerminal(
      [
        'run',
        ...model(),
        ...store(),
        '--approve-tools',
        'calculator',
        '--max-tokens',
        '20',
        '--ask-on-limit',
        'add 2 and 3',
      ],
      [
        ['allow? [y]es', 'a'],
        ['extend by how much?', '100'],
      ],
    );
    expect(run.output).toContain('calculator(expression: "2 + 3") — allow? [y]es / [n]o / [a]lways this tool / [e]dit');
    expect(run.output).toContain('the tokens budget is spent (30 of 20)');
    expect(run.output).toContain('all done');
    expect(run.code).toBe(0);
    expect(loopback.server.requests).toHaveLength(4);
    expect(toolMessages()).toEqual(Array(3).fill('Expression: 2 + 3\nResult: 5'));
  });
});
