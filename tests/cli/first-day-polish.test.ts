// The first-day polish list, each item through the real CLI with the offline model: a paused run's status line, the
// time after approve, approval progress in words rather than raw JSON.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

async function pausedRun(home: string): Promise<{ runId: string; stderr: string }> {
  const paused = await runCli(['run', '--approve-all-tools', 'What is 12 * 7?'], { STAGELOOP_HOME: home });
  expect(paused.code).toBe(4);
  const runs = await runCli(['runs', '--json'], { STAGELOOP_HOME: home });
  return { runId: (JSON.parse(runs.stdout) as Array<{ runId: string }>)[0]!.runId, stderr: paused.stderr };
}

describe('first-day polish', () => {
  it('status: interrupted says the run waits for a decision, not "(partial answer)" with no answer', async () => {
    const home = mkdtempSync(join(tmpdir(), 'stageloop-polish-'));
    const { stderr } = await pausedRun(home);
    expect(stderr).toContain('status: interrupted (waiting for a decision) · stop: awaiting_approval');
    expect(stderr).not.toContain('partial answer');
  });

  it('approval progress lines are words naming the tool, arguments, call id and reason, not raw JSON', async () => {
    const home = mkdtempSync(join(tmpdir(), 'stageloop-polish-'));
    const { runId, stderr } = await pausedRun(home);
    expect(stderr).toContain(
      '  approval needed: calculator(expression: "12 * 7") (call offline_call_2): the pipeline asks for approval of every calculator call',
    );
    expect(stderr).not.toContain('approval requested {');
    const rejected = await runCli(['reject', runId, 'offline_call_2', '--message', 'no calculators today'], {
      STAGELOOP_HOME: home,
    });
    expect(rejected.code).toBe(0);
    expect(rejected.stderr).toContain('  rejected by a person: calculator (call offline_call_2): no calculators today');
    expect(rejected.stderr).not.toContain('approval decided {');
  });

  it('time after approve is the time the continued run took, not 0.0 ms', async () => {
    const home = mkdtempSync(join(tmpdir(), 'stageloop-polish-'));
    const { runId } = await pausedRun(home);
    const approved = await runCli(['approve', runId], { STAGELOOP_HOME: home });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('84');
    expect(approved.stderr).toMatch(/· time: \d/);
    expect(approved.stderr).not.toContain('time: 0.0 ms');
  });
});

describe('first-day polish: argument errors and tool listings', () => {
  it('argument errors are in our wording with the fix, not node\'s raw "Unknown option" / "argument missing"', async () => {
    const unknown = await runCli(['run', '--x', 'hi']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      'stageloop: --x is not an option of this command: run "./bin/stageloop.js run --help" for the options',
    );
    const missing = await runCli(['run', 'hi', '--max-tokens']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      'stageloop: --max-tokens needs a value (--max-tokens VALUE): run "./bin/stageloop.js run --help" for the options',
    );
    expect(missing.stderr).not.toContain('<value>');
  });

  it('stageloop tools ends a cut description with an ellipsis', async () => {
    const { shortened } = await import('../../app/cli/tools-command.js');
    expect(shortened('a'.repeat(150), 100)).toBe(`${'a'.repeat(99)}…`);
    expect(shortened('short', 100)).toBe('short');
    const listed = await runCli(['tools']);
    for (const line of listed.stdout.split('\n').filter((line) => line.startsWith('  ') && line.trim().length >= 100))
      expect(line.endsWith('…')).toBe(true);
  });
});
