// The rest of the first-day polish list, each item through the real CLI (offline model) or the real server: progress
// lines in words, no CLI advice in HTTP bodies, hints naming the command the user typed, a person's wait in `show`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnvironment, runCli } from '../support/run-cli.js';
import { useServes } from '../server/serve-support.js';
import { progressPrinter } from '../../app/cli/progress.js';
import { callText } from '../../app/cli/readable-json.js';
import { invokedName } from '../../app/cli/command-name.js';
import { finishedLine } from '../../app/cli/submit-command.js';
import type { RunEvent } from '../../src/engine/stage.js';
import type { TimelineItem } from '../../src/durable/timeline.js';

const home = () => mkdtempSync(join(tmpdir(), 'stageloop-polish-'));

async function pausedRunId(storeHome: string): Promise<string> {
  const paused = await runCli(['run', '--approve-all-tools', 'What is 12 * 7?'], { STAGELOOP_HOME: storeHome });
  expect(paused.code).toBe(4);
  const runs = await runCli(['runs', '--json'], { STAGELOOP_HOME: storeHome });
  return (JSON.parse(runs.stdout) as Array<{ runId: string }>)[0]!.runId;
}

function printed(events: Array<Pick<RunEvent, 'type' | 'data'> & { stage?: string }>): string {
  let text = '';
  const show = progressPrinter({ write: (piece: string) => ((text += piece), true) } as NodeJS.WritableStream);
  for (const [index, event] of events.entries())
    show({
      runId: 'r',
      seq: index + 1,
      zone: 'iteration',
      iteration: 1,
      at: 0,
      stage: event.stage ?? 'budget',
      ...event,
    } as RunEvent);
  return text;
}

describe('first-day polish: raw JSON in progress lines', () => {
  it('tool calls and approval questions print as calculator(expression: "12 * 7"), not raw JSON', async () => {
    const storeHome = home();
    const paused = await runCli(['run', '--approve-all-tools', 'What is 12 * 7?'], { STAGELOOP_HOME: storeHome });
    expect(paused.stderr).toContain('  approval needed: calculator(expression: "12 * 7") (call offline_call_2)');
    expect(paused.stderr).toContain('  offline_call_2  calculator(expression: "12 * 7")');
    const runId = (
      JSON.parse((await runCli(['runs', '--json'], { STAGELOOP_HOME: storeHome })).stdout) as Array<{ runId: string }>
    )[0]!.runId;
    const approved = await runCli(['approve', runId], { STAGELOOP_HOME: storeHome });
    expect(approved.stderr).toContain('  → calculator(expression: "12 * 7")');
    expect(approved.stderr).not.toMatch(/\{"expression"/);
  });

  it('limit questions and budget events are sentences, and long arguments are cut with an ellipsis', () => {
    const text = printed([
      { type: 'budget_warning', data: { kind: 'tokens', used: 800, limit: 1000, fraction: 0.8 } },
      { type: 'budget_decided', data: { kind: 'tokens', action: 'extend', by: 5000 } },
      { type: 'budget_decided', data: { kind: 'time', action: 'stop' } },
      { type: 'budget_exhausted', data: { kind: 'iterations', used: 3, limit: 3 } },
    ]);
    expect(text).toBe(
      [
        '  budget: the token budget is 80% spent (800 tokens of 1000 tokens)',
        '  limit question (the token budget was spent): a person added 5000 tokens',
        '  limit question (the time budget was spent): a person stopped the run',
        '  budget: the iteration budget is spent (3 iterations of 3 iterations): one last answer without tools',
        '',
      ].join('\n'),
    );
    expect(
      printed([
        {
          type: 'guard_note' as RunEvent['type'],
          stage: 'my-guard',
          data: { maxIterations: 10, maxCostUsd: null } as never,
        },
      ]),
    ).toBe('  my-guard: guard note: maxIterations: 10, maxCostUsd: null\n');
    const long = callText('search', JSON.stringify({ query: 'x'.repeat(300) }));
    expect(long.length).toBeLessThanOrEqual('search()'.length + 160);
    expect(long).toMatch(/…\)$/);
  });
});

describe('first-day polish: library errors carry CLI advice into HTTP bodies', () => {
  const serves = useServes();
  it("the CLI prints the hint after the message; the server's JSON error has the message without CLI advice", async () => {
    const cli = await runCli(['show', 'nope']);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toBe('stageloop: no run with id nope in this store: list runs with "./bin/stageloop.js runs"\n');
    const serve = await serves.start();
    const response = await serve.call('/v1/runs/nope');
    expect(response.status).toBe(404);
    const body = JSON.stringify(await response.json());
    expect(body).toContain('no run with id nope in this store');
    expect(body).not.toMatch(/stageloop (runs|show|resume)|--force/);
  });

  it('a finished run: the CLI names "show"; the error itself (as HTTP sends it) does not', async () => {
    const storeHome = home();
    const runId = await pausedRunId(storeHome);
    expect((await runCli(['approve', runId], { STAGELOOP_HOME: storeHome })).code).toBe(0);
    const again = await runCli(['resume', runId], { STAGELOOP_HOME: storeHome });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`there is nothing to resume: see it with "./bin/stageloop.js show ${runId}"`);
    const { RunFinishedError } = await import('../../src/store/types.js');
    const error = new RunFinishedError(runId, 'completed');
    expect(error.message).toBe(`run ${runId} already ended (completed): there is nothing to resume`);
    expect(error.hint).toBe(`see it with "stageloop show ${runId}"`);
  });
});

describe("first-day polish: hints name stageloop where the README's command is ./bin/stageloop.js", () => {
  it('hints name the command as typed: ./bin/stageloop.js from a clone, stageloop through the npm link on the PATH', async () => {
    expect(invokedName('/home/me/stageloop/bin/stageloop.js', '/home/me/stageloop')).toBe('./bin/stageloop.js');
    expect(invokedName('/usr/local/bin/stageloop', '/home/me/app')).toBe('stageloop');
    expect(invokedName('/home/me/stageloop/bin/stageloop.js', '/tmp')).toBe('/home/me/stageloop/bin/stageloop.js');
    const storeHome = home();
    const paused = await runCli(['run', '--approve-all-tools', 'What is 12 * 7?'], { STAGELOOP_HOME: storeHome });
    expect(paused.stderr).toContain('if it stops, continue it with: ./bin/stageloop.js resume ');
    expect(paused.stderr).toMatch(
      /continue with: \.\/bin\/stageloop\.js approve \w+ \[ID\.\.\.\] \| \.\/bin\/stageloop\.js reject/,
    );
    const unknown = await runCli(['nope']);
    expect(unknown.stderr.trim()).toBe(
      'stageloop: unknown command "nope": run "./bin/stageloop.js --help" for the list of commands',
    );
  });
});

describe("first-day polish: show counts a person's wait inside the resumed stage", () => {
  it('the wait is its own line and the resumed approval stage keeps only its own milliseconds', async () => {
    const storeHome = home();
    const runId = await pausedRunId(storeHome);
    expect((await runCli(['approve', runId], { STAGELOOP_HOME: storeHome })).code).toBe(0);
    const shown = await runCli(['show', runId], { STAGELOOP_HOME: storeHome });
    expect(shown.stdout).toMatch(
      / {4}waiting for a person · \d+(\.\d s| ms) \(not counted as stage time\)\n {4}decision · approved call offline_call_2\n\[1\] approval \(iteration, \d+ ms\): continue/,
    );
    // The wait runs from the pause to the decision (written when `approve` started, a process later); the stage's time from there.
    const json = JSON.parse((await runCli(['show', runId, '--json'], { STAGELOOP_HOME: storeHome })).stdout) as {
      timeline: TimelineItem[];
    };
    const pause = json.timeline.findIndex(
      (item) => item.kind === 'stage' && item.summary.includes('awaiting_approval'),
    );
    const [paused, decision, resumed] = json.timeline.slice(pause, pause + 3);
    expect(decision!.kind).toBe('decision');
    expect(decision!.waitedMs).toBe(decision!.at - paused!.at);
    expect(decision!.waitedMs).toBeGreaterThan(50);
    expect(resumed!.durationMs).toBe(resumed!.at - decision!.at);
  });

  it('"after 1 iteration", not "after 1 iterations"', () => {
    expect(finishedLine('r1', { status: 'completed', iterations: 1, tokens: 151, resumed: false })).toBe(
      'run r1 completed after 1 iteration, 151 tokens\n',
    );
    expect(finishedLine('r1', { status: 'completed', iterations: 2, tokens: 318, resumed: false })).toBe(
      'run r1 completed after 2 iterations, 318 tokens\n',
    );
  });
});

describe("the README's first example (examples/agent.mjs)", () => {
  const readme = () => readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const file = fileURLToPath(new URL('../../examples/agent.mjs', import.meta.url));

  async function runExample(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stdout, stderr };
  }

  it('is the shipped file, and runs as it is on the offline model with no model configured', async () => {
    expect(readme()).toContain(`\`\`\`js\n${readFileSync(file, 'utf8')}\`\`\``);
    const { code, stdout, stderr } = await runExample(cleanEnvironment());
    expect(stderr).toBe('');
    expect(stdout).toBe('completed 17 * 23 + 4 = 395\n');
    expect(code).toBe(0);
  });

  it('a broken model setting is one line naming what to set, exit 2', async () => {
    const { code, stderr } = await runExample({ ...cleanEnvironment(), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^agent\.mjs: OPENAI_MODEL is required when OPENAI_BASE_URL is set[^\n]*\n$/);
  });
});
